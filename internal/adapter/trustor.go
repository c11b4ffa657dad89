package adapter

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// A tenant resource that acts as its identity (through the identity's Keystone trust) keeps in
// its private state the trustor its last apply acted through, and gives it to the run of its
// next apply (cloud.Client.RecordedTrustor): that run then needs no manager-scope token to bind
// the identity scope. A hint only: the cloud acts on it while the trust from that user is live.

// privateTrustor is the key of the private state that keeps the trustor.
const privateTrustor = "trustor"

// trustorMemo is the trustor of the trust of an identity's project.
type trustorMemo struct {
	ProjectID string `json:"project_id"`
	UserID    string `json:"user_id"`
}

// RecallTrustor gives c the trustor src (the request's private state) keeps for projectID, if
// any: before the tenant is bound as the identity (Update).
func RecallTrustor(ctx context.Context, c *cloud.Client, src PrivateReader, projectID string) {
	if m := GetPrivate[trustorMemo](ctx, src, privateTrustor); m != nil && c != nil && m.ProjectID == projectID {
		c.RecordedTrustor(projectID, m.UserID)
	}
}

// KeepTrustor keeps in dst (the response's private state) the trustor the run acted through for
// projectID; it leaves dst as it is when the run did not act as that identity.
func KeepTrustor(ctx context.Context, c *cloud.Client, dst PrivateWriter, projectID string, diags *diag.Diagnostics) {
	if c == nil {
		return
	}

	if user := c.Trustor(projectID); user != "" {
		SetPrivate(ctx, dst, privateTrustor, &trustorMemo{ProjectID: projectID, UserID: user}, diags)
	}
}
