// Package minheap is a binary min-heap kept in a slice: the ready queues
// and event queues of pipert's schedulers. It allocates only to grow.
package minheap

// Ordered is an element that orders itself against another.
type Ordered[T any] interface {
	// Less reports whether the receiver comes before o. It must be a
	// strict weak order; ties pop in no particular order unless Less
	// breaks them.
	Less(o T) bool
}

// Heap is a min-heap by Less. The zero Heap is empty and ready to use.
type Heap[T Ordered[T]] []T

// Len is the number of elements.
func (h Heap[T]) Len() int { return len(h) }

// Push adds x.
func (h *Heap[T]) Push(x T) {
	a := append(*h, x)
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !a[i].Less(a[p]) {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
	*h = a
}

// Pop removes and returns the least element. The heap must not be empty.
func (h *Heap[T]) Pop() T {
	a := *h
	x := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	for i := 0; ; {
		m, l, r := i, 2*i+1, 2*i+2
		if l < n && a[l].Less(a[m]) {
			m = l
		}
		if r < n && a[r].Less(a[m]) {
			m = r
		}
		if m == i {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return x
}
