/** The shape of deploy/local/infra.mjs, for the TypeScript side. */
export interface StartedInfra {
  kafka: { brokers: string; stop: () => Promise<void> };
  postgres: { adminUrl: string; stop: () => Promise<void> };
  stop: () => Promise<void>;
}

export declare function startInfra(options: { mode: 'dev' | 'test'; log?: (line: string) => void }): Promise<StartedInfra>;
export declare function ensureDatabases(adminUrl: string, names: string[]): Promise<void>;
