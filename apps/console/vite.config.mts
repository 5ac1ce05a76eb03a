import react from '@vitejs/plugin-react';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const appRoot = dirname(fileURLToPath(import.meta.url));
const workspaceRoot = join(appRoot, '../..');

/**
 * The console's bundle (nx run console:build), served by the gateway under /console/ with a CSP
 * that allows only same-origin files: nothing is inlined into index.html, no asset becomes a
 * data: URL, no source maps are published.
 */
export default defineConfig({
  root: appRoot,
  base: '/console/',
  plugins: [react()],
  resolve: {
    // The one workspace library the console uses: the platform's currency scale table.
    alias: { '@mp/shared-util-money': join(workspaceRoot, 'libs/shared/util-money/src/index.ts') },
  },
  build: {
    outDir: join(workspaceRoot, 'dist/apps/console/public'),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    sourcemap: false,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
});
