import { useGame } from '../game'
import { Action } from './parts'

/** Copies `text` to the clipboard and says so. */
export function CopyButton({ text, what }: { text: string; what: string }) {
  const game = useGame()
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text)
      game.announce('info', `${what} copied.`)
    } catch {
      game.announce('error', 'This browser did not allow copying: select the text and copy it yourself.')
    }
  }
  return <Action className="small" onAction={copy}>Copy<span className="visually-hidden"> {what.toLowerCase()}</span></Action>
}
