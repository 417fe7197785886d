import { AppError, BadRequest, type FieldError } from '../../../../platform/errors.js'

/**
 * A file an import cannot read: each error names where (a JSON pointer into the document, or the
 * CSV file, and then its `line` and column `field`). Nothing of it is imported.
 */
export class InvalidImport extends BadRequest {
  constructor(detail: string, errors: (FieldError & { line?: number; field?: string })[]) {
    super(detail, 'invalid-import', errors)
  }
}

/** An import beyond its bounds (IMPORT_* in rules.ts): refused whole, before any work. */
export class ImportTooLarge extends AppError {
  constructor(detail: string, path: string) {
    super(413, 'import-too-large', 'Import too large', detail, [{ path, message: 'is beyond what one import takes' }])
  }
}
