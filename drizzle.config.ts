import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/contexts/*/store/tables.ts',
  out: './drizzle',
})
