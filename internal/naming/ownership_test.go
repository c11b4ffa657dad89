package naming

import (
	"maps"
	"testing"
)

func TestMarkRoundTrips(t *testing.T) {
	t.Parallel()

	for _, m := range []Mark{{}, MadeFor("unikorn_network"), MadeFor("unikorn_identity").Done()} {
		if got := MarkOfTags(m.Tags()); got != m {
			t.Errorf("MarkOfTags(%v) = %+v, want %+v", m.Tags(), got, m)
		}

		if got := MarkOf(m.Properties()); got != m {
			t.Errorf("MarkOf(%v) = %+v, want %+v", m.Properties(), got, m)
		}

		if got := MarkOf(m.Extra()); got != m {
			t.Errorf("MarkOf(extra %v) = %+v, want %+v", m.Extra(), got, m)
		}
	}
}

func TestMarkReadsOnlyItsOwnKeys(t *testing.T) {
	t.Parallel()

	cases := []struct {
		name string
		got  Mark
		want Mark
	}{
		{"user tags only", MarkOfTags([]string{"team=a", "unikorn-terraform"}), Mark{}},
		{"completion without creation", MarkOfTags([]string{MarkCompletedTag}), Mark{}},
		{"tags in any order", MarkOfTags([]string{MarkCompletedTag, "x", MarkPrefix + "unikorn_server"}), MadeFor("unikorn_server").Done()},
		{"completion without creation (properties)", MarkOf(map[string]any{MarkCompletedKey: "true"}), Mark{}},
		{"a non-string kind", MarkOf(map[string]any{MarkKindKey: 3}), Mark{}},
		{"completion not true", MarkOf(map[string]string{MarkKindKey: "unikorn_role", MarkCompletedKey: "yes"}), MadeFor("unikorn_role")},
		{"neutron: tags win", MarkOfNeutron([]string{MarkPrefix + "unikorn_network"}, MarkPrefix+"unikorn_server"), MadeFor("unikorn_network")},
		{"neutron: posted, not yet tagged", MarkOfNeutron(nil, MadeFor("unikorn_network").Description()), MadeFor("unikorn_network")},
		{"neutron: a user's description", MarkOfNeutron(nil, "unikorn-terraform: my network"), Mark{}},
		{"neutron: Unikorn's description", MarkOfNeutron(nil, "unikorn managed provider network"), Mark{}},
	}

	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, c.got, c.want)
		}
	}
}

func TestMarkKeysAreKeystoneSafe(t *testing.T) {
	t.Parallel()

	// Keystone rewrites "-" and ":" in the names of extra attributes to "_": the keys must
	// survive a round trip through it unchanged.
	for k := range maps.Keys(MadeFor("unikorn_role").Done().Properties()) {
		for _, r := range k {
			if r == '-' || r == ':' {
				t.Errorf("property key %q would be renamed by Keystone", k)
			}
		}

		if !IsMarkKey(k) {
			t.Errorf("IsMarkKey(%q) = false", k)
		}
	}

	if IsMarkKey("region:server_id") || IsMarkTag("organization=x") || !IsMarkTag(MarkCompletedTag) {
		t.Error("IsMarkKey / IsMarkTag confuse a mark with another key")
	}
}
