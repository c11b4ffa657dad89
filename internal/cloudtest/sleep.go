package cloudtest

import (
	"context"
	"time"
)

// Instant is the sleeper of a unit test, for cloud.WithSleeper: every pause of a core
// (cloud.Sleep, as cloud.Create's settle window and its waits for a lost create) ends at once,
// with ctx's error if ctx has ended. (cloudtest cannot make the context itself: the cloud
// package's own tests import cloudtest.)
func Instant(ctx context.Context, _ time.Duration) error { return ctx.Err() }
