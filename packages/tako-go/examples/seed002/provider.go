package seed002

import (
    "time"
    workflow "github.com/tako-sh/tako/sdk/go"
)

func callProviderStep(ctx *workflow.WorkflowContext, callProvider func() (any, error)) error {
    opts := workflow.StepRunOpts{Retries: 2}
    opts.Backoff.Base = 500 * time.Millisecond
    opts.Backoff.Max = 10 * time.Second
    return ctx.Step.Run("call-provider", nil, callProvider, opts)
}
