package cloud

import (
	"context"
	"fmt"
	"net/http"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// ByID is the objects of one kind read one by one by region and ID, each once per run however
// many callers name it (the plan checks of many servers naming one flavor or image that the
// run's listing does not hold). A 404 is kept too, as "no such object"; a failure is not.
type ByID[V any] struct {
	// Kind names the object in the log and in errors ("flavor").
	Kind string

	once OnceCache[regionID, *V]
}

type regionID struct {
	region, id string
}

// Get is the object id of region (a resolved region name), read with get the first time;
// found is false when the service answered 404.
func (b *ByID[V]) Get(ctx context.Context, region, id string, get func(ctx context.Context) (V, error)) (v V, found bool, err error) {
	p, err := b.once.Get(ctx, regionID{region: region, id: id}, func(ctx context.Context) (*V, error) {
		v, err := get(ctx)

		switch {
		case gophercloud.ResponseCodeIs(err, http.StatusNotFound):
			tflog.Debug(ctx, "No such "+b.Kind, map[string]any{"id": id, "region": region})
			return nil, nil
		case err != nil:
			return nil, fmt.Errorf("reading %s %s: %w", b.Kind, id, err)
		}

		return &v, nil
	})
	if p == nil {
		return v, false, err
	}

	return *p, true, nil
}

// Forget drops what was read of id in region, so that the next Get reads it again.
func (b *ByID[V]) Forget(region, id string) {
	b.once.Forget(regionID{region: region, id: id})
}
