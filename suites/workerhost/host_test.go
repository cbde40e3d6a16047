package workerhost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"

	"github.com/v4cert/v4cert/suites/workerhost"
)

// The workers are this test binary run again with workerEnv set: real Ginkgo
// processes speaking the real protocol to the Host under test.
const workerEnv = "PARALLEL_TEST_WORKER"

func TestMain(m *testing.M) {
	if cfg := os.Getenv(workerEnv); cfg != "" {
		os.Exit(runWorker(cfg))
	}
	os.Exit(m.Run())
}

type workerConfig struct {
	Proc, Total int
	Host        string
	Crash       bool // exit at once, without a word to the host
}

func runWorker(raw string) int {
	var c workerConfig
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	if c.Crash {
		return 9
	}
	os.Setenv("GINKGO_PARALLEL_PROTOCOL", workerhost.Protocol)
	sc, rc := GinkgoConfiguration()
	sc.ParallelProcess, sc.ParallelTotal, sc.ParallelHost = c.Proc, c.Total, c.Host
	sc.OutputInterceptorMode = "none"
	sc.RandomSeed = 7
	RegisterFailHandler(Fail)
	if !RunSpecs(failT{}, "parallel host test", sc, rc) {
		return 1
	}
	return 0
}

type failT struct{}

func (failT) Fail() {}

// The tree the workers run: data shared by SynchronizedBeforeSuite, ordinary
// specs, and one Serial spec that must run last, on process 1.
var shared string

var _ = SynchronizedBeforeSuite(func() []byte {
	return []byte("from process 1")
}, func(data []byte) {
	shared = string(data)
})

var _ = Describe("work", func() {
	for i := range 12 {
		It(fmt.Sprintf("spec %02d", i), func() {
			Expect(shared).To(Equal("from process 1"))
			time.Sleep(20 * time.Millisecond)
		})
	}
	It("serial spec", Serial, func() {
		Expect(GinkgoParallelProcess()).To(Equal(1))
	})
	It("fails", func() {
		Expect(1).To(Equal(2))
	})
})

// recorder keeps the events in order.
type recorder struct {
	mu     sync.Mutex
	begun  []int
	ran    []types.SpecReport
	ended  []int
	endRun map[int]int // process → len(ran) when it ended
}

func (r *recorder) SuiteWillBegin(proc int, _ types.Report) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.begun = append(r.begun, proc)
}

func (r *recorder) DidRun(s types.SpecReport) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ran = append(r.ran, s)
}

func (r *recorder) SuiteDidEnd(proc int, _ types.Report) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended = append(r.ended, proc)
	if r.endRun == nil {
		r.endRun = map[int]int{}
	}
	r.endRun[proc] = len(r.ran)
}

// run starts workers real worker processes (crash: those that die at once)
// and waits for them.
func run(t *testing.T, workers int, crash ...int) *recorder {
	t.Helper()
	rec := &recorder{}
	h, err := workerhost.Start(workers, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var wg sync.WaitGroup
	for p := 1; p <= workers; p++ {
		cfg, _ := json.Marshal(workerConfig{Proc: p, Total: h.Total(), Host: h.Address(), Crash: slices.Contains(crash, p)})
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), workerEnv+"="+string(cfg))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd.Wait()
			h.Exited(p)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("workers did not finish")
	}
	return rec
}

func itTexts(rec *recorder) map[string]int {
	out := map[string]int{}
	for _, s := range rec.ran {
		if s.LeafNodeType == types.NodeTypeIt {
			out[s.LeafNodeText]++
		}
	}
	return out
}

func TestEverySpecRunsOnceAcrossWorkersAndSerialRunsLastOnProcessOne(t *testing.T) {
	for _, workers := range []int{1, 3} {
		t.Run(strconv.Itoa(workers), func(t *testing.T) {
			rec := run(t, workers)
			texts := itTexts(rec)
			if len(texts) != 14 {
				t.Fatalf("%d distinct specs reported, want 14: %v", len(texts), texts)
			}
			for text, n := range texts {
				if n != 1 {
					t.Errorf("%q reported %d times", text, n)
				}
			}
			if len(rec.ended) != workers {
				t.Errorf("suite ends %v, want one per worker", rec.ended)
			}
			procs := map[int]bool{}
			serialAt := -1
			for i, s := range rec.ran {
				if s.LeafNodeType != types.NodeTypeIt {
					continue
				}
				procs[s.ParallelProcess] = true
				switch s.LeafNodeText {
				case "serial spec":
					serialAt = i
					if s.State != types.SpecStatePassed || s.ParallelProcess != 1 {
						t.Errorf("serial spec: %s on process %d", s.State, s.ParallelProcess)
					}
				case "fails":
					if s.State != types.SpecStateFailed {
						t.Errorf("the failing spec is %s", s.State)
					}
				default:
					if s.State != types.SpecStatePassed {
						t.Errorf("%s: %s %s (SynchronizedBeforeSuite data not shared?)", s.LeafNodeText, s.State, s.Failure.Message)
					}
				}
			}
			for p, at := range rec.endRun {
				if p != 1 && at > serialAt {
					t.Errorf("process %d ended after the serial spec ran", p)
				}
			}
			if workers > 1 && len(procs) < 2 {
				t.Errorf("all specs ran on %v; the counter should spread them", procs)
			}
		})
	}
}

func TestAWorkerThatDiesDoesNotHangTheOthers(t *testing.T) {
	rec := run(t, 3, 2)
	texts := itTexts(rec)
	if texts["serial spec"] != 1 {
		t.Errorf("process 1 never ran the serial spec: %v", texts)
	}
	if len(texts) != 14 {
		t.Errorf("the live workers ran %d specs, want all 14 (the dead one took none)", len(texts))
	}
}

// counter asks the host for the next spec index as a worker does.
func counter(ctx context.Context, h *workerhost.Host) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.Address()+"/counter", nil)
	if err != nil {
		return 0, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	var v struct{ Index int }
	err = json.NewDecoder(res.Body).Decode(&v)
	return v.Index, err
}

// Certify pauses the specs not yet handed out while it probes a target that
// may be gone, and drains them when it is.
func TestPauseHoldsTheNextSpecAndDrainEndsThem(t *testing.T) {
	h, err := workerhost.Start(2, &recorder{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	if n, err := counter(ctx, h); n != 0 || err != nil {
		t.Fatalf("first index %d, %v", n, err)
	}
	h.Pause()
	// A held request never answers: the deadline only bounds the test.
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	n, err := counter(short, h)
	cancel()
	if err == nil {
		t.Fatalf("paused, the counter answered %d", n)
	}
	h.Resume()
	// The next index, 1, or 2 when the abandoned request took 1 on waking
	// before its server side saw the client go (no worker abandons one).
	if n, err := counter(ctx, h); (n != 1 && n != 2) || err != nil {
		t.Errorf("after Resume %d, %v: want the next index", n, err)
	}
	h.Pause()
	got := make(chan int, 1)
	go func() { n, _ := counter(ctx, h); got <- n }()
	h.Drain()
	for _, n := range []int{<-got, must(counter(ctx, h))} {
		if n < 1<<20 {
			t.Errorf("drained, the counter answered %d, not an index past every spec", n)
		}
	}
}

func must(n int, err error) int {
	if err != nil {
		panic(err)
	}
	return n
}

// gate asks the host whether a spec may start; -1 when the request ended
// without an answer.
func gate(ctx context.Context, h *workerhost.Host) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.Address()+workerhost.GatePath, nil)
	if err != nil {
		panic(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return -1
	}
	res.Body.Close()
	return res.StatusCode
}

func TestTheGateHoldsAPausedSpecAndClosesOnDrain(t *testing.T) {
	h, err := workerhost.Start(2, &recorder{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	if st := gate(ctx, h); st != workerhost.GateOpen {
		t.Fatalf("running, the gate answered %d", st)
	}
	h.Pause()
	// A held request never answers: the deadline only bounds the test (and
	// a worker interrupted while it waits gives up the same way).
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	st := gate(short, h)
	cancel()
	if st != -1 {
		t.Fatalf("paused, the gate answered %d", st)
	}
	held := make(chan int, 1)
	go func() { held <- gate(ctx, h) }()
	h.Resume()
	if st := <-held; st != workerhost.GateOpen {
		t.Errorf("resumed, the held spec got %d", st)
	}
	// The counter is untouched: the gate hands out nothing.
	if n, err := counter(ctx, h); n != 0 || err != nil {
		t.Errorf("after the gate, the counter answered %d, %v: want the first index", n, err)
	}
	h.Pause()
	go func() { held <- gate(ctx, h) }()
	h.Drain()
	for _, st := range []int{<-held, gate(ctx, h)} {
		if st != workerhost.GateDrained {
			t.Errorf("drained, the gate answered %d", st)
		}
	}
	// Once the host closes, a worker asking gets no answer rather than a wait.
	h.Close()
	if st := gate(ctx, h); st != -1 {
		t.Errorf("closed, the gate answered %d", st)
	}
}

// BenchmarkGate is the round trip each spec of a certify worker pays before
// it starts, beside the protocol's emptiest one (/up) as the baseline.
func BenchmarkGate(b *testing.B) {
	h, err := workerhost.Start(2, &recorder{})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	client := &http.Client{Transport: &http.Transport{}}
	for _, path := range []string{"/up", workerhost.GatePath} {
		b.Run(strings.TrimPrefix(path, "/"), func(b *testing.B) {
			for b.Loop() {
				res, err := client.Get(h.Address() + path)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
		})
	}
}
