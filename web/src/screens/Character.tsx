import { consumeItem, equip, experienceBoardAround, getStats, raiseStat, unequip } from '../api/game'
import type { Item } from '../api/types'
import { useGame } from '../game'
import { useReloadOn } from '../live'
import { AvatarCard } from '../ui/AvatarCard'
import { useLoad } from '../ui/hooks'
import { Action, Empty, ErrorNotice, Loading, Section, messageOf } from '../ui/parts'
import { Icon, type IconName } from '../ui/icons'

const STATS = [
  { key: 'strength', label: 'Strength', hint: 'adds to your attack' },
  { key: 'defense', label: 'Defense', hint: 'adds to your armor' },
  { key: 'intelligence', label: 'Intelligence', hint: 'the mind behind your spells' },
] as const

const ICON: Record<Item['type'], IconName> = { WEAPON: 'sword', ARMOR: 'shield', CONSUMABLE: 'potion' }

export function CharacterScreen() {
  const game = useGame()
  const stats = useLoad(() => getStats(game.avatarId), [game.avatarId])
  // The hero itself follows the stream (GameProvider); attack and armor are read again after a change.
  useReloadOn(['AvatarChanged'], stats.reload, (e) => e.payload.avatarId === game.avatarId)
  const a = game.avatar

  const act = async (f: () => Promise<unknown>, done?: string) => {
    try {
      await f()
      if (done) game.announce('info', done)
    } catch (e) {
      game.announce('error', messageOf(e))
    }
    await Promise.all([game.reloadAvatar(), stats.reload()])
  }

  return (
    <div className="screen">
      <h1>Hero</h1>
      {a ? <AvatarCard avatar={a} /> : <Loading what="your hero" />}
      <Section title="Stats" actions={stats.data && <span className="pill" data-testid="unspent">{stats.data.unspentPoints} point{stats.data.unspentPoints === 1 ? '' : 's'} to spend</span>}>
        {stats.error && <ErrorNotice error={stats.error} />}
        {stats.data ? (
          <>
            <dl className="stat-grid">
              {STATS.map((s) => (
                <div key={s.key} className="stat">
                  <dt>{s.label} <span className="muted small-text">{s.hint}</span></dt>
                  <dd>
                    <span className="num big" data-testid={`stat-${s.key}`}>{stats.data![s.key]}</span>
                    {stats.data!.unspentPoints > 0 && (
                      <Action className="small" onAction={() => act(() => raiseStat(game.avatarId, s.key))} aria-label={`Raise ${s.label} +1`}>+1</Action>
                    )}
                  </dd>
                </div>
              ))}
            </dl>
            <dl className="stat-grid effective">
              <div className="stat"><dt>Attack <span className="muted small-text">strength + weapon</span></dt><dd className="num big" data-testid="attack">{stats.data.attack}</dd></div>
              <div className="stat"><dt>Armor <span className="muted small-text">defense + armor</span></dt><dd className="num big" data-testid="armor">{stats.data.armor}</dd></div>
            </dl>
          </>
        ) : !stats.error && <Loading what="stats" />}
      </Section>
      <Section title="Equipped">
        {a && a.equippedItems.items.length === 0 && <Empty>Nothing equipped. Equip a weapon or armor from your inventory.</Empty>}
        <ul className="items" aria-label="Equipped items">
          {a?.equippedItems.items.map((i) => (
            <li key={`${i.type}-${i.name}`} className="item">
              <ItemLine item={i} />
              <Action className="small" onAction={() => act(() => unequip(game.avatarId, i), `Unequipped ${i.name}.`)}>Unequip<span className="visually-hidden"> {i.name}</span></Action>
            </li>
          ))}
        </ul>
      </Section>
      <Section title="Inventory">
        {a && a.inventory.items.length === 0 && <Empty>Your bag is empty. Visit the market.</Empty>}
        <ul className="items" aria-label="Inventory">
          {a?.inventory.items.map((i, n) => (
            <li key={`${i.type}-${i.name}-${n}`} className="item">
              <ItemLine item={i} />
              {i.type === 'CONSUMABLE'
                ? <Action className="small" onAction={() => act(async () => {
                    const r = await consumeItem(game.avatarId, i.name)
                    game.announce('reward', i.effect === 'FREEZE'
                      ? `Used ${i.name}: streak freezes ${r.streakFreezes.held}/${r.streakFreezes.max}.`
                      : `Used ${i.name}: health ${r.health.current}/${r.health.max}, mana ${r.mana.amount}/${r.mana.max}.`)
                  })}>Use<span className="visually-hidden"> {i.name}</span></Action>
                : <Action className="small primary" onAction={() => act(() => equip(game.avatarId, i), `Equipped ${i.name}.`)}>Equip<span className="visually-hidden"> {i.name}</span></Action>}
            </li>
          ))}
        </ul>
      </Section>
      <AroundYou avatarId={game.avatarId} />
      <Section title="Spells">
        {a && a.spells.length === 0 && <Empty>No spells yet: the first, Fireball, comes at level 5.</Empty>}
        <ul className="items" aria-label="Spells">
          {a?.spells.map((s) => (
            <li key={s.name} className="item">
              <Icon name="spark" size={24} className="item-icon" />
              <span className="item-main">
                <span className="item-name">{s.name}</span>
                <span className="muted wrap">{s.description}</span>
              </span>
              <span className="item-stats"><span>Power {s.power}</span><span>{s.manaCost} mana</span></span>
            </li>
          ))}
        </ul>
      </Section>
    </div>
  )
}

export function ItemLine({ item }: { item: Pick<Item, 'type' | 'name' | 'description' | 'power'> }) {
  return (
    <>
      <Icon name={ICON[item.type] ?? 'market'} size={24} className="item-icon" />
      <span className="item-main">
        <span className="item-name ellipsis" title={item.name}>{item.name}</span>
        {item.description && <span className="muted wrap">{item.description}</span>}
      </span>
      <span className="item-stats"><span>{item.type.toLowerCase()}</span><span>Power {item.power}</span></span>
    </>
  )
}

const count = new Intl.NumberFormat('en')

/** The experience board around the hero: its neighbours by total experience, the hero marked. */
function AroundYou({ avatarId }: { avatarId: string }) {
  const board = useLoad(() => experienceBoardAround(avatarId), [avatarId])
  // Anyone's experience may move the hero's neighbours; its own change surely does.
  useReloadOn(['AvatarChanged'], board.reload, (e) => e.payload.avatarId === avatarId)
  const me = board.data?.items.find((e) => e.avatarId === avatarId)
  return (
    <Section title="Around you" actions={me && board.data && (
      <span className="pill" data-testid="board-rank">You are #{count.format(me.rank)} of {count.format(board.data.total)}</span>
    )}>
      {board.error && <ErrorNotice error={board.error} />}
      {!board.data && !board.error && <Loading what="the experience board" />}
      <ol className="rows leaderboard" aria-label="Experience board around you">
        {board.data?.items.map((e) => (
          <li key={e.avatarId} className={`row-item${e.avatarId === avatarId ? ' mine' : ''}`} aria-current={e.avatarId === avatarId ? 'true' : undefined}>
            <span className="rank num">#{count.format(e.rank)}</span>
            <span className="ellipsis grow" title={e.name}>{e.name}{e.avatarId === avatarId && <strong> (you)</strong>}</span>
            <span className="muted">level {e.level}</span>
            <span className="num">{count.format(e.experience)} XP</span>
          </li>
        ))}
      </ol>
    </Section>
  )
}
