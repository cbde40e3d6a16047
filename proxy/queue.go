package proxy

import "sync"

// workQueue holds the exchanges waiting for the workers, in the traffic's
// order. Adding never blocks: the client's answer never waits for a check or
// for the cassette. How far behind the workers are is the proxy's to report
// (Proxy.finish), never to hide.
type workQueue struct {
	mu     sync.Mutex
	cond   sync.Cond
	items  []*pending
	head   int
	seq    int // the index the next exchange gets
	bytes  int // of the bodies waiting
	closed bool
}

func newWorkQueue() *workQueue {
	q := &workQueue{}
	q.cond.L = &q.mu
	return q
}

// push numbers an exchange and queues it; admit, called under the queue's
// lock with the exchanges and bytes already waiting, may drop its bodies
// (returning false) when the proxy is too far behind to hold them. push
// returns false when the queue is closed.
func (q *workQueue) push(pd *pending, admit func(waiting, bytes int, pd *pending) bool) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	pd.ex.Index = q.seq
	q.seq++
	if admit(len(q.items)-q.head, q.bytes, pd) {
		pd.size = len(pd.ex.Body) + len(pd.ex.ReqBody)
		q.bytes += pd.size
	}
	q.items = append(q.items, pd)
	q.cond.Signal()
	return true
}

// pop waits for the next exchange; nil once the queue is closed and empty.
func (q *workQueue) pop() *pending {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.head == len(q.items) && !q.closed {
		q.cond.Wait()
	}
	if q.head == len(q.items) {
		return nil
	}
	pd := q.items[q.head]
	q.items[q.head] = nil
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	} else if q.head > 1024 && q.head*2 > len(q.items) {
		n := copy(q.items, q.items[q.head:])
		q.items, q.head = q.items[:n], 0
	}
	q.bytes -= pd.size
	return pd
}

// close lets the workers finish what is queued and then stop.
func (q *workQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

func (q *workQueue) empty() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.head == len(q.items)
}
