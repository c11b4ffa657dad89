package cloud

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// ListAll reads every page of pager with extract; what names the objects in errors ("the
// pools of load balancer X").
func ListAll[T any](ctx context.Context, pager pagination.Pager, extract func(pagination.Page) ([]T, error), what string) ([]T, error) {
	pages, err := pager.AllPages(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", what, err)
	}

	all, err := extract(pages)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}

	return all, nil
}

// FindOne lists with pager (a name filter, which OpenStack matches loosely: Keystone ignores
// case) and returns the one object of kind named exactly name: nil when there is none, a
// *naming.DuplicateError naming their IDs when there are several.
func FindOne[T any](ctx context.Context, pager pagination.Pager, extract func(pagination.Page) ([]T, error),
	kind, name string, nameOf, idOf func(T) string,
) (*T, error) {
	all, err := ListAll(ctx, pager, extract, fmt.Sprintf("%ss named %q", kind, name))
	if err != nil {
		return nil, err
	}

	v, ok, err := naming.One(kind, name, all, nameOf, idOf)
	if err != nil || !ok {
		return nil, err
	}

	return &v, nil
}

// Optional is the one object a lookup found (FindOne), as a list: empty when it found none.
// It is what a CreateSpec's Find of an object with a unique name answers.
func Optional[T any](v *T, err error) ([]*T, error) {
	if err != nil || v == nil {
		return nil, err
	}

	return []*T{v}, nil
}
