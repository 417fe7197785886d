/** The one place the web app reads the time, so nothing else calls `new Date()` bare. */
export const now = (): number => Date.now()
