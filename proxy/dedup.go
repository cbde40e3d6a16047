package proxy

import (
	"hash/maphash"
	"strconv"
	"strings"
	"sync"
)

// Bodies stored once. go-vcr's cassette has no field for a compressed or a
// shared body, and a gzip body under Content-Encoding would reach the
// replaying client compressed (go-vcr hands back the recorded bytes as they
// are). What its YAML does allow is an anchor and an alias: the first time a
// body is written it carries an anchor (body: &s12 "…"), and the same body
// again is written as an alias of it (body: *s12), which yaml.v2 (go-vcr v2)
// and yaml.v3 (go-vcr v3, v4 and this proxy) read back as the same string.
// A client polling one page records its 6 KB once, then 5 bytes a time.
//
// Anchors are named by the interaction that first wrote the body and by
// which body it is (q: request, s: response), so names never clash, also
// when appending to a cassette a previous recording wrote. Only the bodies
// written in the last maxSharedBytes are remembered, so memory stays bounded
// over a long recording; an older body is simply written again.

// minShared is the shortest body worth an anchor: an alias costs about as
// much as a short body.
const minShared = 64

const maxSharedBytes = 32 << 20

var dedupSeed = maphash.MakeSeed()

func hashString(s string) uint64 { return maphash.String(dedupSeed, s) }

type sharedBody struct {
	anchor string
	body   string
	hash   uint64
}

// dedup remembers the bodies written lately, by their text. The writer adds
// to it; the workers look in it too, so a body already in the file is not
// even encoded again.
type dedup struct {
	mu     sync.RWMutex
	byHash map[uint64]*sharedBody
	order  []*sharedBody // oldest first, for forgetting
	bytes  int
}

// known reports whether a body is in the file already (a hint: it may be
// forgotten before the writer comes to it, which then writes it in full).
func (d *dedup) known(body string, h uint64) bool {
	d.mu.RLock()
	defer d.mu.RUnlock()
	s := d.byHash[h]
	return s != nil && s.body == body
}

// find returns the anchor of a body written before.
func (d *dedup) find(body string, h uint64) (string, bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if s := d.byHash[h]; s != nil && s.body == body {
		return s.anchor, true
	}
	return "", false
}

// add remembers a body written for the first time by interaction id and
// returns the anchor to write with it.
func (d *dedup) add(body string, h uint64, id int, which byte) string {
	if len(body) > maxSharedBytes/4 {
		return "" // too large to keep
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.byHash == nil {
		d.byHash = map[uint64]*sharedBody{}
	}
	// A copy: the body given may borrow an exchange's buffer (buildInteraction).
	s := &sharedBody{anchor: string(which) + strconv.Itoa(id), body: strings.Clone(body), hash: h}
	d.byHash[h] = s
	d.order = append(d.order, s)
	d.bytes += len(body)
	for d.bytes > maxSharedBytes && len(d.order) > 0 {
		old := d.order[0]
		d.order[0] = nil
		d.order = d.order[1:]
		d.bytes -= len(old.body)
		if d.byHash[old.hash] == old {
			delete(d.byHash, old.hash)
		}
	}
	return s.anchor
}
