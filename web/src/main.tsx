import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './app'
import { registerServiceWorker } from './offline/service-worker'
import './styles.css'

registerServiceWorker()

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
)
