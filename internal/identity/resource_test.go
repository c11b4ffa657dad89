package identity

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestStringChecks(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name    string
		check   validator.String
		value   string
		wantErr string // "" for valid
	}{
		{"name", nameCheck, "tf-acc-123", ""},
		{"name", nameCheck, strings.Repeat("a", 40), ""},
		{"name", nameCheck, "Upper", "must be 1 to 40 characters"},
		{"name", nameCheck, strings.Repeat("a", 41), "must be 1 to 40 characters"},
		{"name", nameCheck, "a_b", "must be 1 to 40 characters"},
		{"tag", tagValueCheck, "org-a", ""},
		{"tag", tagValueCheck, "a/b", "must not contain"},
		{"tag", tagValueCheck, "a,b", "must not contain"},
		{"tag", tagValueCheck, "a b", "must not contain"},
		{"tag", tagValueCheck, strings.Repeat("x", maxTagValue), ""},
		{"tag", tagValueCheck, strings.Repeat("x", maxTagValue+1), "must be 1 to 200 characters"},
		{"time", rfc3339Check, "2030-01-01T00:00:00Z", ""},
		{"time", rfc3339Check, "2030-01-01T00:00:00+02:00", ""},
		{"time", rfc3339Check, "tomorrow", "must be an RFC 3339 time"},
		{"key", sshPublicKeyCheck, "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA== me@host", ""},
		{"key", sshPublicKeyCheck, "ssh-rsa AAAAB3NzaC1yc2E=\n", ""},
		{"key", sshPublicKeyCheck, "ecdsa-sha2-nistp256 AAAAE2VjZHNh", ""},
		{"key", sshPublicKeyCheck, "-----BEGIN OPENSSH PRIVATE KEY-----", "OpenSSH public key"},
		{"key", sshPublicKeyCheck, "not a key", "OpenSSH public key"},
	}

	for _, tt := range tests {
		t.Run(tt.name+" "+tt.value, func(t *testing.T) {
			t.Parallel()

			var resp validator.StringResponse

			tt.check.ValidateString(context.Background(), validator.StringRequest{
				Path: path.Root("x"), ConfigValue: types.StringValue(tt.value),
			}, &resp)

			switch {
			case tt.wantErr == "" && resp.Diagnostics.HasError():
				t.Fatalf("%q: unexpected error %v", tt.value, resp.Diagnostics)
			case tt.wantErr != "" && !strings.Contains(detail(resp.Diagnostics), tt.wantErr):
				t.Fatalf("%q: diagnostics %v, want an error containing %q", tt.value, resp.Diagnostics, tt.wantErr)
			}
		})
	}
}

func detail(diags diag.Diagnostics) string {
	var b strings.Builder

	for _, d := range diags.Errors() {
		b.WriteString(d.Summary() + ": " + d.Detail() + "\n")
	}

	return b.String()
}

func TestCheckExpiry(t *testing.T) {
	t.Parallel()

	now := time.Date(2030, 6, 1, 0, 0, 0, 0, time.UTC)
	at := func(s string) identityModel { return identityModel{ExpiresAt: types.StringValue(s)} }
	never := identityModel{ExpiresAt: types.StringNull()}

	tests := []struct {
		name        string
		plan        identityModel
		state       *identityModel
		wantRefused bool
	}{
		{name: "never", plan: never},
		{name: "future on create", plan: at("2030-06-02T00:00:00Z")},
		{name: "past on create", plan: at("2030-05-31T00:00:00Z"), wantRefused: true},
		{name: "now is not the future", plan: at("2030-06-01T00:00:00Z"), wantRefused: true},
		{name: "changed to the past", plan: at("2030-05-31T00:00:00Z"), state: &identityModel{ExpiresAt: types.StringNull()}, wantRefused: true},
		{name: "unchanged, since passed", plan: at("2030-05-31T00:00:00Z"), state: ptr(at("2030-05-31T00:00:00Z"))},
		{name: "unknown", plan: identityModel{ExpiresAt: types.StringUnknown()}},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			var diags diag.Diagnostics

			ok := checkExpiry(tt.plan, tt.state, now, &diags)
			if ok == tt.wantRefused || diags.HasError() != tt.wantRefused {
				t.Fatalf("checkExpiry = %v, %v; want refused %v", ok, diags, tt.wantRefused)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestPlanRepairs(t *testing.T) {
	t.Parallel()

	roles := types.SetValueMust(types.StringType, nil)
	healthy := identityModel{
		UserID: types.StringValue("u-1"), Roles: roles, ExpiresAt: types.StringNull(),
		ApplicationCredentialID: types.StringValue("ac-1"), ApplicationCredentialSecret: types.StringValue("s"),
		TrustID: types.StringValue("t-1"), ServerGroup: types.ObjectNull(serverGroupAttrTypes),
		SSHPublicKey: types.StringNull(),
	}

	tests := []struct {
		name                                string
		change                              func(plan, state *identityModel)
		keepUser, keepCredential, keepTrust bool
	}{
		{name: "nothing to repair", change: func(_, _ *identityModel) {}, keepUser: true, keepCredential: true, keepTrust: true},
		{name: "user gone", change: func(_, s *identityModel) { s.UserID = types.StringNull() }},
		{name: "credential gone", change: func(_, s *identityModel) { s.ApplicationCredentialID = types.StringNull() }, keepUser: true, keepTrust: true},
		{name: "trust gone", change: func(_, s *identityModel) { s.TrustID = types.StringNull() }, keepUser: true, keepCredential: true},
		{
			name:     "roles changed",
			change:   func(p, _ *identityModel) { p.Roles = roleSet(RoleMember) },
			keepUser: true,
		},
		{
			name:     "new expiry",
			change:   func(p, _ *identityModel) { p.ExpiresAt = types.StringValue("2040-01-01T00:00:00Z") },
			keepUser: true, keepTrust: true,
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			plan, state := healthy, healthy
			tt.change(&plan, &state)
			planRepairs(&plan, &state)

			if plan.UserID.IsUnknown() == tt.keepUser {
				t.Errorf("user_id unknown = %v, want %v", plan.UserID.IsUnknown(), !tt.keepUser)
			}

			for _, v := range []types.String{plan.ApplicationCredentialID, plan.ApplicationCredentialSecret, plan.CloudsYAML} {
				if v.IsUnknown() == tt.keepCredential {
					t.Errorf("credential unknown = %v, want %v", v.IsUnknown(), !tt.keepCredential)
				}
			}

			if plan.TrustID.IsUnknown() == tt.keepTrust {
				t.Errorf("trust_id unknown = %v, want %v", plan.TrustID.IsUnknown(), !tt.keepTrust)
			}

			if !plan.KeypairName.IsNull() || !plan.ServerGroupID.IsNull() {
				t.Errorf("without key and server group: keypair_name %v, server_group_id %v; want null", plan.KeypairName, plan.ServerGroupID)
			}
		})
	}
}

func roleSet(values ...string) types.Set {
	elems := make([]types.String, len(values))
	for i, v := range values {
		elems[i] = types.StringValue(v)
	}

	s, _ := types.SetValueFrom(context.Background(), types.StringType, elems)

	return s
}
