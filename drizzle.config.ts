import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'postgresql',
  schema: ['./src/contexts/*/store/tables.ts', './src/platform/*/tables.ts'],
  out: './drizzle',
})
