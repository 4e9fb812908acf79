/** A binary min-heap ordered by `less`; `remove` and `update` take the element's current index. */
export class MinHeap<T extends { heapIndex: number }> {
  private readonly items: T[] = [];

  constructor(private readonly less: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    item.heapIndex = this.items.length;
    this.items.push(item);
    this.up(item.heapIndex);
  }

  pop(): T | undefined {
    const top = this.items[0];
    if (top) this.remove(top);
    return top;
  }

  remove(item: T): void {
    const index = item.heapIndex;
    const last = this.items.pop() as T;
    if (index < this.items.length) {
      this.items[index] = last;
      last.heapIndex = index;
      this.fix(index);
    }
    item.heapIndex = -1;
  }

  /** Restores order after the element's key changed. */
  fix(index: number): void {
    if (!this.up(index)) this.down(index);
  }

  private up(index: number): boolean {
    const start = index;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.less(this.items[index]!, this.items[parent]!)) break;
      this.swap(index, parent);
      index = parent;
    }
    return index !== start;
  }

  private down(index: number): void {
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let smallest = index;
      if (left < this.items.length && this.less(this.items[left]!, this.items[smallest]!)) smallest = left;
      if (right < this.items.length && this.less(this.items[right]!, this.items[smallest]!)) smallest = right;
      if (smallest === index) return;
      this.swap(index, smallest);
      index = smallest;
    }
  }

  private swap(a: number, b: number): void {
    const itemA = this.items[a]!;
    const itemB = this.items[b]!;
    this.items[a] = itemB;
    this.items[b] = itemA;
    itemA.heapIndex = b;
    itemB.heapIndex = a;
  }
}
