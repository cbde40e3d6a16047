// Package workerhost hosts Ginkgo's parallel-support protocol, so that a program
// can run the specs compiled into it in N worker processes of itself, the way
// the ginkgo CLI runs a test binary with -p.
//
// Ginkgo's own server (internal/parallel_support) cannot be imported, but the
// workers' side is public: a process that calls RunSpecs with
// SuiteConfig.ParallelProcess/ParallelTotal/ParallelHost set, and
// GINKGO_PARALLEL_PROTOCOL=HTTP in its environment, speaks JSON over HTTP to
// ParallelHost. Host answers that protocol (Ginkgo v2.34: /up, /counter,
// /did-run, /before-suite-state, …) and hands every spec report to the caller
// as it arrives, so the caller holds the run's results even if a worker dies.
//
// What the protocol gives the run is Ginkgo's own: specs handed out one
// group at a time from a shared counter (so a slow spec never holds up a
// queue), SynchronizedBeforeSuite's data from process 1 to the others,
// Serial specs run on process 1 once every other process has finished, and
// an abort that reaches every process (--fail-fast, interruption).
package workerhost

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"

	"github.com/onsi/ginkgo/v2/types"
)

// Protocol is the value of GINKGO_PARALLEL_PROTOCOL the workers need: Host
// speaks the HTTP variant.
const Protocol = "HTTP"

// Events receives what the workers report. Calls are serialised.
type Events interface {
	// SuiteWillBegin: process proc built its tree and is about to run.
	SuiteWillBegin(proc int, r types.Report)
	// DidRun: one spec or suite-level node finished on some process
	// (r.ParallelProcess).
	DidRun(r types.SpecReport)
	// SuiteDidEnd: process proc finished; r holds its own spec reports.
	SuiteDidEnd(proc int, r types.Report)
}

// Host serves the protocol on a loopback port.
type Host struct {
	workers int
	total   int
	events  Events
	ln      net.Listener
	srv     *http.Server

	// hold guards what Pause, Resume and Drain change, apart from mu so that
	// they may be called from Events (which run under mu).
	hold    sync.Mutex
	counter int
	paused  chan struct{} // while not nil, workers asking for a spec wait for it to close
	drained bool          // no spec is handed out any more

	mu          sync.Mutex
	abort       bool
	ended       []bool // by process-1: reported its suite's end
	gone        []bool // by process-1: exited without reporting it
	nonprimary  types.Report
	haveReports int
	beforeSuite *beforeSuiteState
	reportState types.SpecState // of ReportBeforeSuite on process 1; invalid until posted
}

// beforeSuiteState is SynchronizedBeforeSuite's result on process 1, as the
// protocol carries it (parallel_support.BeforeSuiteState).
type beforeSuiteState struct {
	Data  []byte
	State types.SpecState
}

// Start listens on a free loopback port for workers worker processes.
//
// One worker is still run in parallel mode, as process 1 of 2 whose second
// process has already finished with nothing to do: Ginkgo talks to a host only
// when ParallelTotal > 1, and this way every run, whatever its size, reaches
// the caller through the same Events in the same order of operations (Serial
// specs last, on process 1).
func Start(workers int, events Events) (*Host, error) {
	if workers < 1 {
		return nil, errors.New("parallel: at least one worker")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h := &Host{workers: workers, total: max(workers, 2), events: events, ln: ln, reportState: types.SpecStateInvalid}
	h.ended = make([]bool, h.total)
	h.gone = make([]bool, h.total)
	if workers == 1 {
		h.ended[1] = true
		h.nonprimary = types.Report{SuiteSucceeded: true}
		h.haveReports = 1
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/up", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("/suite-will-begin", h.suiteWillBegin)
	mux.HandleFunc("/did-run", h.didRun)
	mux.HandleFunc("/suite-did-end", h.suiteDidEnd)
	mux.HandleFunc("/emit-output", func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) })
	mux.HandleFunc("/progress-report", func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) })
	mux.HandleFunc("/report-before-suite-completed", h.reportBeforeSuiteCompleted)
	mux.HandleFunc("/report-before-suite-state", h.reportBeforeSuiteState)
	mux.HandleFunc("/before-suite-completed", h.beforeSuiteCompleted)
	mux.HandleFunc("/before-suite-state", h.beforeSuiteStateHandler)
	mux.HandleFunc("/have-nonprimary-procs-finished", h.haveNonprimaryFinished)
	mux.HandleFunc("/aggregated-nonprimary-procs-report", h.aggregatedNonprimary)
	mux.HandleFunc("/counter", h.nextCounter)
	mux.HandleFunc("/abort", h.abortHandler)
	mux.HandleFunc(GatePath, h.gate)
	h.srv = &http.Server{Handler: mux}
	go h.srv.Serve(ln)
	return h, nil
}

// Address is the ParallelHost to give the workers.
func (h *Host) Address() string { return "http://" + h.ln.Addr().String() }

// Total is the ParallelTotal to give the workers (processes 1..Workers run).
func (h *Host) Total() int { return h.total }

// Exited tells the host that process proc is gone, so nobody waits for it:
// a process that exits before reporting its suite's end (killed, crashed)
// must not leave process 1 polling for ever.
func (h *Host) Exited(proc int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if proc >= 1 && proc <= h.total && !h.ended[proc-1] {
		h.gone[proc-1] = true
	}
}

// Abort asks every worker to stop after the spec it is running (their
// interrupt handlers poll for it).
func (h *Host) Abort() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.abort = true
}

// Pause holds the specs not yet handed out: a worker that asks for its
// next spec, or at the gate whether the next spec of its group may start,
// waits until Resume or Drain. The specs in flight go on. It may be called
// from Events.DidRun, so that the worker that reported the spec is held
// before it starts another.
func (h *Host) Pause() {
	h.hold.Lock()
	defer h.hold.Unlock()
	if h.paused == nil && !h.drained {
		h.paused = make(chan struct{})
	}
}

// Resume hands out specs again after Pause.
func (h *Host) Resume() {
	h.hold.Lock()
	defer h.hold.Unlock()
	h.release()
}

// Drain hands out no more specs: every worker asking for one, now or
// later, is told there are none left (process 1 still runs the Serial
// specs then, unless it is being interrupted).
func (h *Host) Drain() {
	h.hold.Lock()
	defer h.hold.Unlock()
	h.drained = true
	h.release()
}

func (h *Host) release() {
	if h.paused != nil {
		close(h.paused)
		h.paused = nil
	}
}

// pastTheEnd is the counter's answer once drained: an index past any
// suite's specs, so Ginkgo's loop over them ends.
const pastTheEnd = 1 << 30

// Close stops serving.
func (h *Host) Close() error { return h.srv.Close() }

// Status codes of the protocol: 425 ask again later, 410 the answer will never
// come (the process that would give it is gone), 424 it failed.
const (
	statusEarly = http.StatusTooEarly
	statusGone  = http.StatusGone
)

func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	defer r.Body.Close()
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return false
	}
	return true
}

func encode(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func (h *Host) suiteWillBegin(w http.ResponseWriter, r *http.Request) {
	var rep types.Report
	if !decode(w, r, &rep) {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events.SuiteWillBegin(rep.SuiteConfig.ParallelProcess, rep)
}

func (h *Host) didRun(w http.ResponseWriter, r *http.Request) {
	var rep types.SpecReport
	if !decode(w, r, &rep) {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events.DidRun(rep)
}

func (h *Host) suiteDidEnd(w http.ResponseWriter, r *http.Request) {
	var rep types.Report
	if !decode(w, r, &rep) {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	proc := rep.SuiteConfig.ParallelProcess
	if proc >= 1 && proc <= h.total {
		h.ended[proc-1] = true
		h.gone[proc-1] = false
	}
	if proc > 1 {
		// Process 1's ReportAfterSuite nodes see every other process's specs.
		if h.haveReports == 0 {
			h.nonprimary = rep
		} else {
			h.nonprimary = h.nonprimary.Add(rep)
		}
		h.haveReports++
	}
	h.events.SuiteDidEnd(proc, rep)
}

func (h *Host) reportBeforeSuiteCompleted(w http.ResponseWriter, r *http.Request) {
	var st types.SpecState
	if !decode(w, r, &st) {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reportState = st
}

func (h *Host) reportBeforeSuiteState(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	st, gone := h.reportState, h.gone[0]
	h.mu.Unlock()
	switch {
	case st != types.SpecStateInvalid:
		encode(w, st)
	case gone:
		w.WriteHeader(statusGone)
	default:
		w.WriteHeader(statusEarly)
	}
}

func (h *Host) beforeSuiteCompleted(w http.ResponseWriter, r *http.Request) {
	var st beforeSuiteState
	if !decode(w, r, &st) {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.beforeSuite = &st
}

func (h *Host) beforeSuiteStateHandler(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	st, gone := h.beforeSuite, h.gone[0]
	h.mu.Unlock()
	switch {
	case st != nil:
		encode(w, st)
	case gone:
		w.WriteHeader(statusGone)
	default:
		w.WriteHeader(statusEarly)
	}
}

// nonprimaryFinished: every process but the first has ended or is gone.
func (h *Host) nonprimaryFinished() bool {
	for i := 1; i < h.total; i++ {
		if !h.ended[i] && !h.gone[i] {
			return false
		}
	}
	return true
}

func (h *Host) haveNonprimaryFinished(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	done := h.nonprimaryFinished()
	h.mu.Unlock()
	if !done {
		w.WriteHeader(statusEarly)
	}
}

func (h *Host) aggregatedNonprimary(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	done, complete, rep := h.nonprimaryFinished(), h.haveReports == h.total-1, h.nonprimary
	h.mu.Unlock()
	switch {
	case !done:
		w.WriteHeader(statusEarly)
	case !complete:
		w.WriteHeader(statusGone)
	default:
		encode(w, rep)
	}
}

func (h *Host) nextCounter(w http.ResponseWriter, r *http.Request) {
	for {
		h.hold.Lock()
		if wait := h.paused; wait != nil {
			h.hold.Unlock()
			select {
			case <-wait:
				continue
			case <-r.Context().Done():
				return
			}
		}
		n := h.counter
		if h.drained {
			n = pastTheEnd
		} else {
			h.counter++
		}
		h.hold.Unlock()
		encode(w, struct{ Index int }{n})
		return
	}
}

// GatePath is not Ginkgo's: a worker asks it before each spec starts, so
// that a spec of a group the worker already holds (the counter hands out an
// Ordered container whole) waits through a Pause like a group not yet handed
// out, and is not run at all once the host is drained.
const GatePath = "/gate"

// Gate answers: the spec may start.
const (
	GateOpen    = http.StatusOK
	GateDrained = statusGone
)

// gate answers GateOpen, or GateDrained once Drain was called; while paused
// it waits for Resume or Drain (or for the worker to give up asking).
func (h *Host) gate(w http.ResponseWriter, r *http.Request) {
	for {
		h.hold.Lock()
		wait, drained := h.paused, h.drained
		h.hold.Unlock()
		switch {
		case drained:
			w.WriteHeader(GateDrained)
			return
		case wait == nil:
			w.WriteHeader(GateOpen)
			return
		}
		select {
		case <-wait:
		case <-r.Context().Done():
			return
		}
	}
}

func (h *Host) abortHandler(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r.Method != http.MethodGet {
		h.abort = true
		return
	}
	if h.abort {
		w.WriteHeader(statusGone)
	}
}
