package cloud

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2/pagination"
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
