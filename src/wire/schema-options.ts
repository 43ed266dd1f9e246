// Shared by the run-time compiler (src/schemas.ts) and the build-time one (scripts/compile-schemas.js).
export const AJV_OPTIONS = { allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true } as const;

export const SCHEMA_NAMES = ['payment-order', 'rules', 'clients', 'pull-page'] as const;
export type SchemaName = (typeof SCHEMA_NAMES)[number];
