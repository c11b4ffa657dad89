package adapter

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// Op is one of a resource's operations.
type Op int

// The operations, as Terraform calls them.
const (
	Create Op = iota
	Read
	Update
	Delete
	Import
)

// gerund is the operation in the diagnostics' summaries: "Error creating network".
func (o Op) gerund() string {
	return [...]string{"creating", "reading", "updating", "deleting", "importing"}[o]
}

// Source is what a model is read from: tfsdk.Plan, tfsdk.State or tfsdk.Config.
type Source interface {
	Get(ctx context.Context, target any) diag.Diagnostics
}

// Get reads the model M out of src; false when that failed (the diagnostics say why).
func Get[M any](ctx context.Context, src Source, diags *diag.Diagnostics) (M, bool) {
	var m M

	diags.Append(src.Get(ctx, &m)...)

	return m, !diags.HasError()
}

// Operation is one CRUD call of a resource in progress, opened by Begin: it is bounded by the
// operation's timeout, counts the requests it makes and reports every failure under the one
// summary of its kind ("Error creating network").
type Operation struct {
	op      Op
	kind    Kind
	diags   *diag.Diagnostics
	counter func() int64
	before  int64
	cancel  context.CancelFunc
}

// Begin opens operation op: the returned context carries the operation's timeout (the
// configured one, else the kind's default). End must be called when the operation is over;
// false when the timeouts could not be read (the diagnostics say why), and End is then a
// no-op.
func (b *ResourceBase[T]) Begin(ctx context.Context, op Op, tv timeouts.Value, diags *diag.Diagnostics) (context.Context, *Operation, bool) {
	o := &Operation{op: op, kind: b.kind, diags: diags, cancel: func() {}}

	if c := b.Cloud(); c != nil {
		o.counter = c.RequestCount
		o.before = c.RequestCount()
	}

	timeout, d := operationTimeout(ctx, op, tv, b.kind.Timeouts)
	diags.Append(d...)

	if diags.HasError() {
		return ctx, o, false
	}

	if timeout > 0 {
		ctx, o.cancel = context.WithTimeout(ctx, timeout)
	}

	return ctx, o, true
}

// operationTimeout is op's timeout from the configured timeouts, else from defaults; an import
// has no timeouts attribute and gets Deadline.
func operationTimeout(ctx context.Context, op Op, tv timeouts.Value, defaults Timeouts) (time.Duration, diag.Diagnostics) {
	switch op {
	case Create:
		return tv.Create(ctx, defaults.Create)
	case Read:
		return tv.Read(ctx, defaults.Read)
	case Update:
		return tv.Update(ctx, defaults.Update)
	case Delete:
		return tv.Delete(ctx, defaults.Delete)
	case Import:
		return Deadline, nil
	}

	return 0, nil
}

// End closes the operation: it logs how many requests it made and releases its deadline.
func (o *Operation) End(ctx context.Context) {
	defer o.cancel()

	if o.counter == nil {
		return
	}

	tflog.Debug(ctx, "Finished "+o.op.gerund()+" the "+o.kind.Noun, map[string]any{"requests": o.counter() - o.before})
}

// Summary is the summary of the operation's errors: "Error creating network".
func (o *Operation) Summary() string {
	return fmt.Sprintf("Error %s %s", o.op.gerund(), o.kind.Noun)
}

// Fail reports that the operation on subject (the object and where it is, e.g.
// "network-a (ID) in project P, region R") failed with err.
func (o *Operation) Fail(subject string, err error) {
	o.diags.AddError(o.Summary(), fmt.Sprintf("%s: %s", subject, err))
}

// FailOrRefuse reports err, when there is one: a guard's refusal of type E (a delete refused
// because something is still there, with its remedy in its message) under summary, as it is;
// any other error as the operation's failure on subject.
func FailOrRefuse[E error](o *Operation, subject string, err error, summary string) {
	var refusal E

	switch {
	case err == nil:
	case errors.As(err, &refusal):
		o.diags.AddError(summary, err.Error())
	default:
		o.Fail(subject, err)
	}
}

// Failed tells whether the operation has reported an error.
func (o *Operation) Failed() bool { return o.diags.HasError() }

// Subject names an object for messages: "network-a (ID) in project P, region R". id may be
// empty (not made yet) and where nil (not bound yet).
func Subject(name, id string, where fmt.Stringer) string {
	s := name
	if id != "" {
		s += " (" + id + ")"
	}

	if where != nil && !reflect.ValueOf(where).IsZero() { // a nil *cloud.Tenant is not a nil interface
		s += " in " + where.String()
	}

	return s
}
