// Integration tests start real processes (services, CLI commands); a 5 s default is too short.
jest.setTimeout(120_000);
