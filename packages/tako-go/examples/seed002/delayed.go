package seed002

import (
    "context"
    "time"
    workflow "github.com/tako-sh/tako/sdk/go"
)

func enqueueDelayedOrder(ctx context.Context) (*workflow.EnqueueResult, error) {
    runAt := time.Now().Add(time.Minute)
    id := "fulfill:ord_123"
    maxAttempts := uint32(7)
    return workflow.Enqueue(ctx, "fulfill-order", map[string]string{"orderId": "ord_123"},
        workflow.EnqueueOpts{RunAt: &runAt, ID: &id, MaxAttempts: &maxAttempts})
}
