package workflow

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"
)

// HandlerFunc is a workflow's code. Return nil for success, ctx.Bail(reason) to
// cancel, ctx.Fail(err) to fail without retry, ErrParked (from ctx.Step) to park, or
// any other error to retry while attempts remain.
type HandlerFunc func(ctx *WorkflowContext, payload json.RawMessage) error

// WorkflowOption configures RegisterWorkflow.
type WorkflowOption func(*definition)

// WithMaxAttempts sets the attempts of a run, counting the first (default 3).
func WithMaxAttempts(n uint32) WorkflowOption {
	return func(d *definition) { d.MaxAttempts = n }
}

// WithGroup sets the worker group the workflow's runs are queued in (default "default").
func WithGroup(group string) WorkflowOption {
	return func(d *definition) { d.Group = group }
}

// WithSchedule runs the workflow on a five-field cron expression (UTC), once per tick
// across all servers.
func WithSchedule(cron string) WorkflowOption {
	return func(d *definition) { d.Schedule = cron }
}

// WithBackoff sets the run-level retry delays: base doubles per attempt, capped at max,
// with 20% jitter (default 1 s up to 1 h).
func WithBackoff(base, max time.Duration) WorkflowOption {
	return func(d *definition) { d.Backoff = &backoffJSON{Base: base.Milliseconds(), Max: max.Milliseconds()} }
}

// WithTask registers fn as the task `name` of the workflow: Steps.Task(key, name, …)
// runs it as a child run of the same workflow, pinned to the parent's version. A task's
// error fails its run without retry (as in workflows as code). It panics on an empty
// name, a nil fn or a task given twice.
func WithTask(name string, fn HandlerFunc) WorkflowOption {
	return func(d *definition) {
		if name == "" || fn == nil {
			panic(fmt.Sprintf("sluice: WithTask on %q needs a name and a function", d.Name))
		}
		if _, dup := d.tasks[name]; dup {
			panic(fmt.Sprintf("sluice: task %q of %q is given twice", name, d.Name))
		}
		if d.tasks == nil {
			d.tasks = map[string]HandlerFunc{}
		}
		d.tasks[name] = fn
	}
}

// WithVersion registers this code's version (a build or commit id: letters, digits,
// . _ - +; every workflow of a worker names the same one): the worker claims only runs
// not yet pinned or pinned to it and pins the ones it claims; their tasks run on their
// parent's version (WorkflowContext.Version). A run pinned to a version no worker runs
// any more waits until one does.
func WithVersion(v string) WorkflowOption {
	return func(d *definition) { d.Version = v }
}

type backoffJSON struct {
	Base int64 `json:"base"`
	Max  int64 `json:"max"`
}

type definition struct {
	Name        string       `json:"name"`
	Group       string       `json:"group,omitempty"`
	MaxAttempts uint32       `json:"maxAttempts,omitempty"`
	Backoff     *backoffJSON `json:"backoff,omitempty"`
	Schedule    string       `json:"schedule,omitempty"`
	Version     string       `json:"version,omitempty"`
	handler     HandlerFunc
	tasks       map[string]HandlerFunc
}

var (
	registryMu sync.Mutex
	registry   = map[string]*definition{}
)

// RegisterWorkflow registers a workflow for RunWorker. It panics on an empty name, a
// nil handler or a name registered twice (programming errors, as with http.Handle).
func RegisterWorkflow(name string, handler HandlerFunc, opts ...WorkflowOption) {
	if name == "" {
		panic("sluice: RegisterWorkflow needs a non-empty name")
	}
	if handler == nil {
		panic(fmt.Sprintf("sluice: RegisterWorkflow(%q) needs a handler", name))
	}
	d := &definition{Name: name, handler: handler}
	for _, o := range opts {
		o(d)
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[name]; dup {
		panic(fmt.Sprintf("sluice: workflow %q is registered twice", name))
	}
	registry[name] = d
}

// registered returns the registered workflows, by name.
func registered() []*definition {
	registryMu.Lock()
	defer registryMu.Unlock()
	out := make([]*definition, 0, len(registry))
	for _, d := range registry {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
