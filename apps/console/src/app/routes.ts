import type { ReactNode } from 'react';

/**
 * One page of the console: the views declare theirs (views/<role>), the shell (App.tsx) matches
 * the address against them. Its own file so that neither imports the other.
 */
export interface RouteDefinition {
  pattern: string;
  /** Shown in the main navigation when set. */
  navLabel?: string;
  render: (params: Record<string, string>) => ReactNode;
}
