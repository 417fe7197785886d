/** Settings' theme switch: System (the device's light or dark), Light or Dark; it applies at once. */
import { useState } from 'react'
import { chooseTheme, themeChoice, type ThemeChoice } from '../theme'
import { Section } from './parts'

const CHOICES: { choice: ThemeChoice; label: string }[] = [
  { choice: 'system', label: 'System' },
  { choice: 'light', label: 'Light' },
  { choice: 'dark', label: 'Dark' },
]

export function ThemeSwitch() {
  const [current, setCurrent] = useState(themeChoice)
  const pick = (choice: ThemeChoice) => {
    chooseTheme(choice)
    setCurrent(choice)
  }
  return (
    <Section title="Theme">
      <div className="segmented" role="radiogroup" aria-label="Theme">
        {CHOICES.map(({ choice, label }) => (
          <label key={choice} className={current === choice ? 'on' : ''}>
            <input type="radio" name="theme" value={choice} checked={current === choice} onChange={() => pick(choice)} />
            {label}
          </label>
        ))}
      </div>
      <p className="field-hint">This device remembers the choice. System follows the device's light or dark setting.</p>
    </Section>
  )
}
