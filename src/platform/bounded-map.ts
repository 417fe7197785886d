/** A Map that forgets its oldest entry once it holds `capacity` (a cache of recent things). */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly capacity: number) {
    super()
  }

  override set(key: K, value: V): this {
    this.delete(key)
    if (this.size >= this.capacity) this.delete(this.keys().next().value as K)
    return super.set(key, value)
  }
}
