/**
 * Line icons drawn inline, so the app looks the same on machines without a colour emoji font.
 * Decorative: hidden from assistive technology (the text next to them says what they mean).
 */
const PATHS = {
  today: 'M12 4V2M12 22v-2M4 12H2M22 12h-2M5.6 5.6 4.2 4.2M19.8 19.8l-1.4-1.4M5.6 18.4l-1.4 1.4M19.8 4.2l-1.4 1.4M12 7a5 5 0 1 0 0 10 5 5 0 0 0 0-10z',
  habits: 'M4 6h16v14H4zM4 10h16M8 3v5M16 3v5M8 14l2 2 4-4',
  hero: 'M12 3l7 3v5c0 5-3 8-7 10-4-2-7-5-7-10V6z M9 12l2 2 4-4',
  market: 'M5 8h14l-1 12H6zM9 8V6a3 3 0 0 1 6 0v2',
  guild: 'M4 21V9l4-3 4 3 4-3 4 3v12zM10 21v-5h4v5M7 3v3M17 3v3',
  battle: 'M4 4l9 9M4 4h4M4 4v4M20 4l-9 9M20 4h-4M20 4v4M8 16l-4 4M16 16l4 4M6 14l4 4M18 14l-4 4',
  quests: 'M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM15.5 8.5l-2 5-5 2 2-5z',
  coin: 'M12 20a8 8 0 1 0 0-16 8 8 0 0 0 0 16zM12 8v8M9.5 10a2.5 1.8 0 0 1 5 0M14.5 14a2.5 1.8 0 0 1-5 0',
  flame: 'M12 21c-4 0-6-2.5-6-6 0-3 2-5 3-7 1 2 2 3 3 3 0-3 1-6 3-8 1 3 3 5 3 9 0 5-2.5 9-6 9z',
  sword: 'M14 4h6v6L9 21l-3-3zM5 15l4 4M3 21l3-3',
  shield: 'M12 3l7 3v5c0 5-3 8-7 10-4-2-7-5-7-10V6z',
  potion: 'M10 3h4M10 3v5l-4 7a4 4 0 0 0 3.5 6h5A4 4 0 0 0 18 15l-4-7V3M7.5 14h9',
  spark: 'M12 3l2 6 6 2-6 2-2 6-2-6-6-2 6-2z',
  lock: 'M6 11h12v10H6zM9 11V8a3 3 0 0 1 6 0v3',
  skull: 'M12 3a7 7 0 0 0-7 7c0 3 1.5 4.5 3 5.5V19h8v-3.5c1.5-1 3-2.5 3-5.5a7 7 0 0 0-7-7zM9.5 11h.01M14.5 11h.01M10 19v2M14 19v2',
  trophy: 'M8 4h8v5a4 4 0 0 1-8 0zM8 6H5a3 3 0 0 0 3 4M16 6h3a3 3 0 0 1-3 4M12 13v4M8 21h8M9 17h6',
  info: 'M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 11v5M12 8h.01',
  warn: 'M12 4l9 16H3zM12 10v4M12 17h.01',
  check: 'M5 12l5 5 9-10',
  snowflake: 'M12 2v20M3.3 7l17.4 10M3.3 17 20.7 7M9.5 3.5 12 6l2.5-2.5M9.5 20.5 12 18l2.5 2.5M4.2 10.4l3.4-.9-.9-3.4M19.8 13.6l-3.4.9.9 3.4M4.2 13.6l3.4.9-.9 3.4M19.8 10.4l-3.4-.9.9-3.4',
  settings: 'M4 6h9M17 6h3M4 12h3M11 12h9M4 18h11M19 18h1M15 4v4M9 10v4M17 16v4',
  bell: 'M6 17V11a6 6 0 0 1 12 0v6l2 2H4zM10 21h4',
  wifiOff: 'M3 3l18 18M8.5 16.5a5 5 0 0 1 7 0M5 12.5a10 10 0 0 1 4.2-2.4M19 12.5a10 10 0 0 0-2.6-1.8M2 8.8a15 15 0 0 1 4.5-2.6M22 8.8A15 15 0 0 0 11 5M12 20h.01',
} as const

export type IconName = keyof typeof PATHS

export function Icon({ name, size = 20, className }: { name: IconName; size?: number; className?: string }) {
  return (
    <svg className={`icon${className ? ` ${className}` : ''}`} width={size} height={size} viewBox="0 0 24 24" fill="none" stroke="currentColor"
      strokeWidth={2} strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
      <path d={PATHS[name]} />
    </svg>
  )
}
