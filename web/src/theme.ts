/**
 * The colour theme: the system's (prefers-color-scheme) unless the player pins light or dark in
 * Settings. The choice lives in localStorage; index.html applies it before the first paint and
 * styles.css picks each colour by the root's color-scheme.
 */
export type ThemeChoice = 'system' | 'light' | 'dark'

/** Read by the inline script in index.html too: keep the two in step. */
const KEY = 'questline.theme'

export function themeChoice(): ThemeChoice {
  const stored = localStorage.getItem(KEY)
  return stored === 'light' || stored === 'dark' ? stored : 'system'
}

export function chooseTheme(choice: ThemeChoice): void {
  if (choice === 'system') {
    localStorage.removeItem(KEY)
    delete document.documentElement.dataset.theme
  } else {
    localStorage.setItem(KEY, choice)
    document.documentElement.dataset.theme = choice
  }
}
