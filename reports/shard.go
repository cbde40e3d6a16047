package reports

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Shard is one part of a run split over machines: `certify --shard K/N` runs
// the specs whose full text hashes to K, and `report merge` puts the N
// reports back together.
//
// The partition depends on the spec's text alone (FNV-1a of Describe + It
// texts), so it is the same on every machine, for every seed and process
// count, and a spec moves between shards only when its text changes. Specs
// with the same text land in the same shard.
type Shard struct {
	Index int `json:"index"` // 1..Total
	Total int `json:"total"`
}

// ParseShard reads "K/N" (1 ≤ K ≤ N).
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	ki, err1 := strconv.Atoi(strings.TrimSpace(k))
	ni, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || ni < 1 || ki < 1 || ki > ni {
		return Shard{}, fmt.Errorf("shard %q: want K/N with 1 ≤ K ≤ N, e.g. 2/4", s)
	}
	return Shard{Index: ki, Total: ni}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Total) }

// Of returns the shard (1..Total) that runs the spec with this full text.
func (s Shard) Of(specText string) int {
	if s.Total <= 1 {
		return 1
	}
	h := fnv.New64a()
	h.Write([]byte(specText))
	return int(h.Sum64()%uint64(s.Total)) + 1
}

// Runs says whether this shard runs the spec.
func (s Shard) Runs(specText string) bool { return s.Total <= 1 || s.Of(specText) == s.Index }
