/**
 * The bare baseline: fastify and pg doing the same SQL as the platform's avatar GET and money
 * earn, with no auth, no validation, no events. What the platform's overhead is measured against.
 */
import Fastify from 'fastify'
import pg from 'pg'

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 })
const app = Fastify()

app.get('/healthz', async () => ({ status: 'ok' }))

app.get<{ Params: { id: string } }>('/avatars/:id', async (req, reply) => {
  const { rows } = await pool.query('select * from avatar.avatars where id = $1', [req.params.id])
  if (rows.length === 0) return reply.code(404).send({ error: 'not found' })
  return rows[0]
})

app.post<{ Params: { id: string }; Body: { amount: number } }>('/avatars/:id/earn', async (req, reply) => {
  const client = await pool.connect()
  try {
    await client.query('begin')
    await client.query('select * from avatar.avatars where id = $1 for update', [req.params.id])
    await client.query('update avatar.avatars set money = money + $2, version = version + 1 where id = $1', [req.params.id, req.body.amount])
    await client.query('commit')
  } catch (e) {
    await client.query('rollback')
    throw e
  } finally {
    client.release()
  }
  return reply.code(204).send()
})

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' })
process.once('SIGTERM', () => void app.close().then(() => pool.end()).then(() => process.exit(0)))
