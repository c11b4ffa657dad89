package adapter

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// PrivateReader is a resource's private state as a request holds it (Read, Update).
type PrivateReader interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

// PrivateWriter is a resource's private state as a response holds it (Create, Read, Update).
type PrivateWriter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// GetPrivate is the value of type T kept at key in the resource's private state; nil when there
// is none. Private state is a memo of the provider's, never the truth: a value that does not
// decode (an older provider's) is dropped with a debug line, not reported.
func GetPrivate[T any](ctx context.Context, src PrivateReader, key string) *T {
	if src == nil {
		return nil
	}

	raw, diags := src.GetKey(ctx, key)
	if diags.HasError() || len(raw) == 0 {
		return nil
	}

	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		tflog.Debug(ctx, "Dropped a private state value that does not decode", map[string]any{"key": key, "error": err.Error()})
		return nil
	}

	return &v
}

// SetPrivate keeps v at key in the resource's private state; a nil v removes the key.
func SetPrivate[T any](ctx context.Context, dst PrivateWriter, key string, v *T, diags *diag.Diagnostics) {
	if dst == nil {
		return
	}

	var raw []byte

	if v != nil {
		var err error
		if raw, err = json.Marshal(v); err != nil {
			diags.AddError("Error keeping private state", "Encoding "+key+": "+err.Error())
			return
		}
	}

	diags.Append(dst.SetKey(ctx, key, raw)...)
}
