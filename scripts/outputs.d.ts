export declare const ROOT: string

export interface BuildOutput {
  /** Where the build writes. */
  dir: string
  /** The file whose time is the build's. */
  entry: string
  /** Files and directories whose changes make the build stale. */
  sources: string[]
}

export declare const SERVER: BuildOutput
export declare const WEB: BuildOutput
export declare function newestModification(paths: string[]): number
export declare function isStale(output: BuildOutput): boolean
