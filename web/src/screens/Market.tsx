import { useState } from 'react'
import { ApiError } from '../api/client'
import { buy, catalog, marketplaceOf, sell, soldItems, tradeProblem } from '../api/marketplace'
import type { ItemType, MarketItem } from '../api/types'
import { useGame } from '../game'
import { Link } from '../router'
import { useLoad } from '../ui/hooks'
import { Action, Empty, ErrorNotice, Loading, Notice, Section } from '../ui/parts'
import { ItemLine } from './Character'
import { Icon } from '../ui/icons'

const FILTERS = ['ALL', 'WEAPON', 'ARMOR', 'CONSUMABLE'] as const
const FILTER_LABEL: Record<(typeof FILTERS)[number], string> = { ALL: 'All', WEAPON: 'Weapons', ARMOR: 'Armor', CONSUMABLE: 'Potions' }

export function MarketScreen() {
  const game = useGame()
  const [type, setType] = useState<ItemType | 'ALL'>('ALL')
  const [shown, setShown] = useState<{ kind: 'success' | 'error'; text: string }>()
  // Said at the top of the page and, for a player scrolled down to the item, as an announcement.
  const setOutcome = (o: { kind: 'success' | 'error'; text: string } | undefined) => {
    setShown(o)
    if (o) game.announce(o.kind === 'error' ? 'error' : 'info', o.text)
  }
  const outcome = shown
  const market = useLoad(() => marketplaceOf(game.avatarId), [game.avatarId])
  const marketId = market.data?.id
  const items = useLoad(() => (marketId ? catalog(marketId, type) : Promise.resolve(undefined)), [marketId, type])
  const sold = useLoad(() => (marketId ? soldItems(marketId) : Promise.resolve(undefined)), [marketId])
  const a = game.avatar
  const level = a?.level.levelNumber ?? 1
  const gold = a?.money.amount ?? 0

  const purchase = async (i: MarketItem) => {
    if (!marketId) return
    setOutcome(undefined)
    try {
      await buy(marketId, i.name, level)
      setOutcome({ kind: 'success', text: `Bought ${i.name} for ${i.price} gold. It is in your inventory.` })
    } catch (e) {
      setOutcome({ kind: 'error', text: tradeProblem(e, i.name) })
    }
    await game.reloadAvatar()
  }

  const sellItem = async (name: string) => {
    if (!marketId) return
    setOutcome(undefined)
    const before = gold
    try {
      await sell(marketId, name)
      const after = await game.reloadAvatar()
      setOutcome({ kind: 'success', text: `Sold ${name}${after ? ` for ${after.money.amount - before} gold` : ''}.` })
      await sold.reload()
    } catch (e) {
      setOutcome({ kind: 'error', text: tradeProblem(e, name) })
      await game.reloadAvatar()
    }
  }

  return (
    <div className="screen">
      <h1>Market</h1>
      <p className="muted">You have <strong className="gold-text"><Icon name="coin" size={16} /> {gold} gold</strong> at level {level}.</p>
      {market.error && (market.error instanceof ApiError && market.error.status === 404
        ? <Notice kind="warn">The market is closed: this server offers no marketplace yet. Come back later.</Notice>
        : <ErrorNotice error={market.error} />)}
      {outcome && <Notice kind={outcome.kind}>{outcome.text}{outcome.kind === 'success' && outcome.text.startsWith('Bought') && <> <Link to="/character">Equip it</Link></>}</Notice>}
      {!market.error && <>
        <Section title="Catalog">
          <div className="segmented" role="radiogroup" aria-label="Item type">
            {FILTERS.map((f) => (
              <label key={f} className={type === f ? 'on' : ''}>
                <input type="radio" name="item-type" value={f} checked={type === f} onChange={() => setType(f)} />
                {FILTER_LABEL[f]}
              </label>
            ))}
          </div>
          {items.error && <ErrorNotice error={items.error} />}
          {!items.data && !items.error && !market.error && <Loading what="the catalog" />}
          {items.data?.length === 0 && <Empty>Nothing of this kind for sale.</Empty>}
          <ul className="items" aria-label="Items for sale">
            {items.data?.map((i) => {
              const locked = level < i.requiredLevel
              const short = i.price - gold
              return (
                <li key={i.name} className={`item${locked ? ' locked' : ''}`}>
                  <ItemLine item={i} />
                  <span className="item-buy">
                    <span className={`price${short > 0 ? ' short' : ''}`}><Icon name="coin" size={16} /> {i.price}</span>
                    {locked
                      ? <span className="lock" title={`Requires level ${i.requiredLevel}`}><Icon name="lock" size={16} /> Level {i.requiredLevel}</span>
                      : <Action className="small primary" onAction={() => purchase(i)} title={short > 0 ? `You need ${short} more gold` : undefined}>Buy<span className="visually-hidden"> {i.name}</span></Action>}
                  </span>
                </li>
              )
            })}
          </ul>
        </Section>
        <Section title="Sell from your inventory">
          {a && a.inventory.items.length === 0 && <Empty>Nothing to sell. Equipped items must be unequipped first.</Empty>}
          <ul className="items" aria-label="Your items to sell">
            {a?.inventory.items.map((i, n) => (
              <li key={`${i.name}-${n}`} className="item">
                <ItemLine item={i} />
                <Action className="small" onAction={() => sellItem(i.name)}>Sell<span className="visually-hidden"> {i.name}</span></Action>
              </li>
            ))}
          </ul>
        </Section>
        <Section title="Sold">
          {sold.data?.length === 0 && <Empty>You have not sold anything yet.</Empty>}
          <ul className="items" aria-label="Sold items">
            {sold.data?.map((i, n) => (
              <li key={`${i.name}-${n}`} className="item"><ItemLine item={i} /><span className="price"><Icon name="coin" size={16} /> {i.price}</span></li>
            ))}
          </ul>
        </Section>
      </>}
    </div>
  )
}
