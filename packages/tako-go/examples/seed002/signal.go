package seed002

import (
    "context"
    workflow "github.com/tako-sh/tako/sdk/go"
)

func approveOrder(ctx context.Context, orderID, userID string) (uint64, error) {
    return workflow.Signal(ctx, "approval:order-"+orderID,
        map[string]any{"approved": true, "by": userID})
}
