// The Go side of the conformance suite (test/conformance/): the same workflows as
// test/conformance/workflows.ts, so both workers can be checked for the same outcomes.
// It follows the suite's worker contract (test/conformance/README.md): SLUICE_URL and
// SLUICE_TOKEN, CONFORMANCE_WORKER (this process's name, written into step values),
// CONFORMANCE_LEASE_MS (lease length), and the output lines the scenarios read.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"log"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	workflow "sluice.dev/sdk-go"
)

func main() {
	workflow.RegisterWorkflow("conf-steps", func(ctx *workflow.WorkflowContext, _ json.RawMessage) error {
		var a int
		if err := ctx.Step.Run("a", &a, func() (any, error) { log.Printf("conf-steps: a ran"); return 1, nil }); err != nil {
			return err
		}
		if err := ctx.Step.Sleep("nap", 300*time.Millisecond); err != nil {
			return err
		}
		return ctx.Step.Run("b", nil, func() (any, error) { return a + 1, nil })
	})
	workflow.RegisterWorkflow("conf-retry", func(ctx *workflow.WorkflowContext, _ json.RawMessage) error {
		return ctx.Step.Run("try", nil, func() (any, error) {
			if ctx.Attempt == 1 {
				return nil, errors.New("first attempt fails")
			}
			return ctx.Attempt, nil
		})
	}, workflow.WithMaxAttempts(3), workflow.WithBackoff(100*time.Millisecond, 200*time.Millisecond))
	workflow.RegisterWorkflow("conf-wait-timeout", func(ctx *workflow.WorkflowContext, _ json.RawMessage) error {
		var v *struct{}
		if err := ctx.Step.WaitFor("never", &v, 200*time.Millisecond); err != nil {
			return err
		}
		if v == nil {
			return ctx.Bail("timed out")
		}
		return nil
	})
	workflow.RegisterWorkflow("conf-signal", func(ctx *workflow.WorkflowContext, raw json.RawMessage) error {
		var p struct {
			Event string `json:"event"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return ctx.Fail(err)
		}
		var got *struct {
			OK bool `json:"ok"`
		}
		if err := ctx.Step.WaitFor(p.Event, &got, time.Hour); err != nil {
			return err
		}
		if got == nil || !got.OK {
			return ctx.Fail(errors.New("bad signal"))
		}
		return nil
	})
	workflow.RegisterWorkflow("conf-fail", func(ctx *workflow.WorkflowContext, _ json.RawMessage) error {
		return ctx.Fail(errors.New("bad order"))
	})
	name := os.Getenv("CONFORMANCE_WORKER")
	if name == "" {
		name = "go"
	}
	workflow.RegisterWorkflow("conf-crash", func(ctx *workflow.WorkflowContext, raw json.RawMessage) error {
		var p struct {
			Ms int `json:"ms"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return ctx.Fail(err)
		}
		if err := ctx.Step.Run("first", nil, func() (any, error) {
			log.Printf("conf-crash: first ran on %s", name)
			return name, nil
		}); err != nil {
			return err
		}
		return ctx.Step.Run("work", nil, func() (any, error) {
			log.Printf("conf-crash: work started on %s, attempt %d", name, ctx.Attempt)
			time.Sleep(time.Duration(p.Ms) * time.Millisecond)
			log.Printf("conf-crash: work finished on %s", name)
			return name, nil
		})
	})
	workflow.RegisterWorkflow("conf-child", func(ctx *workflow.WorkflowContext, raw json.RawMessage) error {
		var p struct {
			N int `json:"n"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return ctx.Fail(err)
		}
		if p.N == 0 {
			return ctx.Fail(errors.New("cannot double zero"))
		}
		var d int
		if err := ctx.Step.Run("double", &d, func() (any, error) { return p.N * 2, nil }); err != nil {
			return err
		}
		return ctx.SetResult(d)
	})
	workflow.RegisterWorkflow("conf-parent", func(ctx *workflow.WorkflowContext, _ json.RawMessage) error {
		var d int
		if err := ctx.Step.Child("double", "conf-child", map[string]int{"n": 21}, &d); err != nil {
			return err
		}
		var ce *workflow.ChildError
		if err := ctx.Step.Child("zero", "conf-child", map[string]int{"n": 0}, nil); !errors.As(err, &ce) {
			if err != nil {
				return err
			}
			return ctx.Fail(errors.New("the zero child should have failed"))
		}
		return ctx.Step.Run("sum", nil, func() (any, error) { return d + 1, nil })
	})
	workflow.RegisterWorkflow("conf-fanout", func(ctx *workflow.WorkflowContext, _ json.RawMessage) error {
		outs := make([]int, 3)
		calls := make([]workflow.ChildCall, 3)
		for i, n := range []int{1, 2, 0} {
			calls[i] = workflow.ChildCall{Name: "double", Workflow: "conf-child", Payload: map[string]int{"n": n}, Out: &outs[i]}
		}
		errs, err := ctx.Step.Children(calls)
		if err != nil {
			return err
		}
		var ce *workflow.ChildError
		if errs[0] != nil || errs[1] != nil || !errors.As(errs[2], &ce) {
			return ctx.Fail(errors.New("want the third child (n = 0) alone to fail"))
		}
		return ctx.Step.Run("sum", nil, func() (any, error) { return outs[0] + outs[1], nil })
	})
	workflow.RegisterWorkflow("conf-tasks", confTasks,
		workflow.WithTask("extract", func(ctx *workflow.WorkflowContext, raw json.RawMessage) error {
			var p struct {
				N int `json:"n"`
			}
			if err := json.Unmarshal(raw, &p); err != nil {
				return err
			}
			var rows int
			if err := ctx.Step.Run("rows", &rows, func() (any, error) { return p.N * 10, nil }); err != nil {
				return err
			}
			return ctx.SetResult(rows)
		}),
		workflow.WithTask("broken", func(*workflow.WorkflowContext, json.RawMessage) error { return errors.New("bad row") }),
		workflow.WithTask("slow", func(ctx *workflow.WorkflowContext, _ json.RawMessage) error {
			select {
			case <-time.After(1500 * time.Millisecond):
			case <-ctx.Done():
			}
			return ctx.SetResult("too late")
		}))
	workflow.RegisterWorkflow("conf-big-fanout", confBigFanout,
		workflow.WithTask("echo", func(ctx *workflow.WorkflowContext, raw json.RawMessage) error {
			var p struct {
				I int `json:"i"`
			}
			if err := json.Unmarshal(raw, &p); err != nil {
				return err
			}
			return ctx.SetResult(p.I)
		}))
	workflow.RegisterWorkflow("conf-approval", func(ctx *workflow.WorkflowContext, _ json.RawMessage) error {
		d, err := ctx.Step.WaitForApproval(workflow.ApprovalOpts{Timeout: time.Hour})
		if err != nil {
			return err
		}
		if !d.Approved {
			return ctx.Bail("rejected")
		}
		return ctx.Step.Run("after", nil, func() (any, error) { return d.Approver, nil })
	})
	workflow.RegisterWorkflow("conf-links", func(ctx *workflow.WorkflowContext, _ json.RawMessage) error {
		if err := ctx.Step.Run("links", nil, func() (any, error) { return ctx.Step.GetResumeURLs("bob") }); err != nil {
			return err
		}
		d, err := ctx.Step.WaitForApproval(workflow.ApprovalOpts{Timeout: time.Hour})
		if err != nil {
			return err
		}
		return ctx.Step.Run("after", nil, func() (any, error) { return d.Approver, nil })
	})
	workflow.RegisterWorkflow("conf-cron", func(ctx *workflow.WorkflowContext, _ json.RawMessage) error {
		return ctx.Step.Run("tick", nil, func() (any, error) {
			log.Printf("conf-cron: ran on %s", name)
			return name, nil
		})
	}, workflow.WithSchedule("* * * * *"))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	client, err := workflow.ClientFromEnv()
	if err != nil {
		log.Fatal(err)
	}
	opts := workflow.WorkerOptions{InlineSleep: 100 * time.Millisecond}
	if ms, err := strconv.Atoi(os.Getenv("CONFORMANCE_LEASE_MS")); err == nil && ms > 0 {
		opts.Lease = time.Duration(ms) * time.Millisecond
	}
	log.Printf("conformance worker: ready")
	// Sleeps over 100 ms park, so a sleep is checkpointed across claims.
	if err := workflow.NewWorker(client, opts).Run(ctx); err != nil {
		log.Fatal(err)
	}
}

// confTasks runs functions of its own workflow as task children (see the README's table).
func confTasks(ctx *workflow.WorkflowContext, _ json.RawMessage) error {
	var rows int
	opts := workflow.ChildOpts{Priority: 3, CacheTTL: time.Minute}
	if err := ctx.Step.Task("extract", "extract", map[string]int{"n": 2}, &rows, opts); err != nil {
		return err
	}
	var ce *workflow.ChildError
	if err := ctx.Step.Task("broken", "broken", map[string]any{}, nil); !errors.As(err, &ce) {
		if err != nil {
			return err
		}
		return ctx.Fail(errors.New("the broken task should have failed"))
	}
	var childErr struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal(ce.Result, &childErr); err != nil {
		return ctx.Fail(err)
	}
	failed := map[string]any{"key": ce.Key, "child": ce.ChildID != "", "message": childErr.Message}
	slow := workflow.ChildCall{Name: "slow", Task: "slow", Opts: workflow.ChildOpts{Timeout: 300 * time.Millisecond}}
	errs, err := ctx.Step.Children([]workflow.ChildCall{slow})
	if err != nil {
		return err
	}
	var late any
	var lce *workflow.ChildError
	if errors.As(errs[0], &lce) {
		late = lce.Code
	}
	return ctx.Step.Run("sum", nil, func() (any, error) {
		return map[string]any{"rows": rows, "failed": failed, "late": late}, nil
	})
}

// confBigFanout starts payload.n task children of ~1,050 bytes each in one park: over 512 KiB,
// so the SDK writes them in parts before the park; step "sum" adds their results.
func confBigFanout(ctx *workflow.WorkflowContext, raw json.RawMessage) error {
	var p struct {
		N int `json:"n"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return ctx.Fail(err)
	}
	pad := strings.Repeat("x", 1000)
	outs := make([]int, p.N)
	calls := make([]workflow.ChildCall, p.N)
	for i := range calls {
		calls[i] = workflow.ChildCall{Name: "echo", Task: "echo", Payload: map[string]any{"i": i, "pad": pad}, Out: &outs[i]}
	}
	errs, err := ctx.Step.Children(calls)
	if err != nil {
		return err
	}
	for _, e := range errs {
		if e != nil {
			return ctx.Fail(e)
		}
	}
	return ctx.Step.Run("sum", nil, func() (any, error) {
		total := 0
		for _, o := range outs {
			total += o
		}
		return total, nil
	})
}
