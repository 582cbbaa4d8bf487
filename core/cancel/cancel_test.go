package cancel_test

import (
	"context"
	"errors"
	"testing"

	"github.com/uldplab/uldp/core/cancel"
)

func TestContexts(t *testing.T) {
	if cancel.Never.Err() != nil {
		t.Error("Never stopped")
	}
	ctx, stop := context.WithCancel(context.Background())
	var c cancel.Context = ctx // a context.Context is a Context
	if c.Err() != nil {
		t.Fatal("stopped before cancel")
	}
	stop()
	if !errors.Is(c.Err(), context.Canceled) {
		t.Errorf("after cancel: %v", c.Err())
	}
}
