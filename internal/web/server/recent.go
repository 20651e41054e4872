package server

import (
	"slices"
	"sync"
)

// recent holds at most max values by key, forgetting the least recently
// used one first to make room: the server's small memories of the last
// requests (answers, missed deadlines), bounded whatever the requests. Its
// zero value with max set is ready; it is safe for concurrent use.
type recent[K comparable, V any] struct {
	max   int
	mu    sync.Mutex
	order []K // least recently used first
	byKey map[K]V
}

// get returns the value of k, and marks k used.
func (c *recent[K, V]) get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.byKey[k]
	if ok {
		c.touch(k)
	}
	return v, ok
}

// put sets the value of k, and marks k used.
func (c *recent[K, V]) put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey == nil {
		c.byKey = make(map[K]V)
	}
	if _, ok := c.byKey[k]; !ok && len(c.order) >= c.max {
		delete(c.byKey, c.order[0])
		c.order = c.order[1:]
	}
	c.byKey[k] = v
	c.touch(k)
}

// touch moves k to the most recently used end. c.mu must be held.
func (c *recent[K, V]) touch(k K) {
	c.order = append(slices.DeleteFunc(c.order, func(o K) bool { return o == k }), k)
}
