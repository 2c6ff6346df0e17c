// The worker program of the repository's end-to-end test (test/sdk-go/go-worker.test.ts):
// seed 002's fulfill-order with durable steps, a parked sleep, and the seed's approval
// wait; a workflow that fails its first attempt; a slow step for kill tests; a workflow that logs
// two lines apart. It drains on SIGTERM.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"log"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	workflow "sluice.dev/sdk-go"
)

type order struct {
	ID    string `json:"id"`
	Total int    `json:"total"`
}

type ApprovalDecision struct {
	Approved bool   `json:"approved"`
	By       string `json:"by"`
}

// waitForApproval is seed 002's helper.
func waitForApproval(ctx *workflow.WorkflowContext, orderID string) error {
	var decision *ApprovalDecision
	if err := ctx.Step.WaitFor("approval:order-"+orderID, &decision, 7*24*time.Hour); err != nil {
		return err
	}
	if decision == nil {
		return ctx.Bail("approval timed out")
	}
	if !decision.Approved {
		return ctx.Bail("approval rejected")
	}
	return nil
}

func main() {
	workflow.RegisterWorkflow("fulfill-order", func(ctx *workflow.WorkflowContext, raw json.RawMessage) error {
		var payload struct {
			OrderID string `json:"orderId"`
		}
		if err := json.Unmarshal(raw, &payload); err != nil {
			return ctx.Fail(err)
		}
		var o order
		if err := ctx.Step.Run("load-order", &o, func() (any, error) {
			log.Printf("loading %s", payload.OrderID)
			return order{ID: payload.OrderID, Total: 42}, nil
		}); err != nil {
			return err
		}
		if err := ctx.Step.Run("charge", nil, func() (any, error) {
			log.Printf("charging %s %d (key %s:charge)", o.ID, o.Total, ctx.RunID)
			return map[string]any{"charged": o.Total}, nil
		}); err != nil {
			return err
		}
		if err := ctx.Step.Sleep("cool-down", 500*time.Millisecond); err != nil {
			return err
		}
		if err := waitForApproval(ctx, o.ID); err != nil {
			return err
		}
		ctx.Logger.Info("approved: sending the receipt for %s", o.ID)
		return ctx.Step.Run("send-receipt", nil, func() (any, error) { return "sent", nil })
	}, workflow.WithMaxAttempts(5), workflow.WithGroup("go"))

	workflow.RegisterWorkflow("flaky", func(ctx *workflow.WorkflowContext, _ json.RawMessage) error {
		// When each attempt became due and was claimed (server clock, ms): the retry is due after its backoff.
		log.Printf("flaky %s attempt %d due %d claimed %d", ctx.RunID, ctx.Attempt, ctx.DueAt.UnixMilli(), ctx.ClaimedAt.UnixMilli())
		return ctx.Step.Run("try", nil, func() (any, error) {
			if ctx.Attempt == 1 {
				return nil, errors.New("first attempt fails")
			}
			return ctx.Attempt, nil
		})
	}, workflow.WithMaxAttempts(3), workflow.WithBackoff(100*time.Millisecond, 200*time.Millisecond))

	// slow-step: for the kill tests. ORDER_WORKER_NAME tells the workers apart.
	name := os.Getenv("ORDER_WORKER_NAME")
	workflow.RegisterWorkflow("slow-step", func(ctx *workflow.WorkflowContext, raw json.RawMessage) error {
		var p struct {
			Ms int `json:"ms"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return ctx.Fail(err)
		}
		if err := ctx.Step.Run("first", nil, func() (any, error) {
			log.Printf("first ran on %s", name)
			return name, nil
		}); err != nil {
			return err
		}
		return ctx.Step.Run("work", nil, func() (any, error) {
			log.Printf("work started on %s, attempt %d", name, ctx.Attempt)
			time.Sleep(time.Duration(p.Ms) * time.Millisecond)
			log.Printf("work finished on %s", name)
			return name, nil
		})
	}, workflow.WithMaxAttempts(3))

	// log-twice: for the log tests. Two lines some time apart, then success or (fail: true) an error.
	workflow.RegisterWorkflow("log-twice", func(ctx *workflow.WorkflowContext, raw json.RawMessage) error {
		var p struct {
			Ms   int  `json:"ms"`
			Fail bool `json:"fail"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return ctx.Fail(err)
		}
		ctx.Logger.Info("first")
		time.Sleep(time.Duration(p.Ms) * time.Millisecond)
		ctx.Logger.Info("second")
		if p.Fail {
			return ctx.Fail(errors.New("failed after logging"))
		}
		return nil
	}, workflow.WithMaxAttempts(1))

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	client, err := workflow.ClientFromEnv()
	if err != nil {
		log.Fatal(err)
	}
	// Sleeps over 100 ms park the run (the default is 30 s), so the test sees a parked sleep.
	opts := workflow.WorkerOptions{InlineSleep: 100 * time.Millisecond}
	if ms, err := strconv.Atoi(os.Getenv("ORDER_WORKER_LEASE_MS")); err == nil {
		opts.Lease = time.Duration(ms) * time.Millisecond
	}
	w := workflow.NewWorker(client, opts)
	log.Printf("order-worker %s: serving fulfill-order, flaky, slow-step", name)
	if err := w.Run(ctx); err != nil {
		log.Fatal(err)
	}
	log.Printf("order-worker: drained")
}
