/**
 * The browser's notifications (Notification API) for what should reach a player in another tab or
 * window: reminders and invites, while a Questline tab is open. Permission is asked once, on a
 * gesture (browsers ignore or penalise a request without one); the answer is remembered, and the
 * inbox offers to ask again only while the browser has no answer.
 */

const ASKED = 'questline.notifications.asked'

export type Permission = NotificationPermission | 'unsupported'

export function permission(): Permission {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission
}

function asked(): boolean {
  try {
    return localStorage.getItem(ASKED) !== null
  } catch {
    return false // no storage: ask again next time
  }
}

/** Asks for permission (call from a click); remembers that it asked and what the answer was. */
export async function askPermission(): Promise<Permission> {
  if (permission() !== 'default') return permission()
  const answer = await Notification.requestPermission()
  try {
    localStorage.setItem(ASKED, answer)
  } catch {
    // No storage: the browser remembers a granted or denied answer anyway.
  }
  return answer
}

/** Asks the first time only (opening the inbox is the gesture). */
export async function askOnce(): Promise<Permission> {
  return asked() ? permission() : askPermission()
}

/**
 * Shows a notification when permitted; `tag` makes a notification shown by several open tabs
 * one. A click brings the tab forward.
 */
export function notify(n: { tag: string; title: string; body: string }): void {
  if (permission() !== 'granted') return
  let shown: Notification
  try {
    shown = new Notification(n.title, { body: n.body, tag: n.tag })
  } catch (e) {
    // Android's Chrome shows notifications only through a service worker: the inbox has it.
    if (e instanceof TypeError) return
    throw e
  }
  shown.onclick = () => {
    window.focus()
    shown.close()
  }
}
