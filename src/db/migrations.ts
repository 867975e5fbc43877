import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The project root: src/db and dist/db are both two levels below it, so this holds built or not. */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

/** Where an engine's migrations are (drizzle-kit writes them: npm run db:generate), applied as a store opens. */
export const migrationsFolder = (engine: 'sqlite' | 'postgres') => resolve(root, engine === 'sqlite' ? 'drizzle' : 'drizzle/postgres')
