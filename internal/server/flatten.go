package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/netip"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// expandSpec turns the plan (and the configured user data, which never reaches the plan)
// into a Spec.
func expandSpec(ctx context.Context, m serverModel, userData types.String) (Spec, diag.Diagnostics) {
	var diags diag.Diagnostics

	spec := Spec{
		Name:        m.Name.ValueString(),
		NetworkID:   m.NetworkID.ValueString(),
		FlavorID:    m.FlavorID.ValueString(),
		ImageID:     m.ImageID.ValueString(),
		PublicIP:    m.PublicIP.ValueBool(),
		ServerGroup: m.ServerGroup.ValueBool(),
		SSHKey:      m.SSHKey.ValueBool(),
		PowerState:  m.PowerState.ValueString(),
		Host:        m.Host.ValueString(),
		Hypervisor:  m.HypervisorHostname.ValueString(),
	}

	if !userData.IsNull() && !userData.IsUnknown() && userData.ValueString() != "" {
		spec.UserData = []byte(userData.ValueString())
	}

	if !m.SecurityGroupIDs.IsNull() {
		diags.Append(m.SecurityGroupIDs.ElementsAs(ctx, &spec.SecurityGroupIDs, false)...)
		slices.Sort(spec.SecurityGroupIDs)
	}

	if !m.Tags.IsNull() {
		diags.Append(m.Tags.ElementsAs(ctx, &spec.Tags, false)...)
	}

	if !m.Volumes.IsNull() {
		spec.ManageVolumes = true
		diags.Append(m.Volumes.ElementsAs(ctx, &spec.Volumes, false)...)
		slices.Sort(spec.Volumes)
	}

	rv, ok, d := rootVolumeOf(ctx, m.RootVolume)
	diags.Append(d...)

	if ok {
		// An unknown class (unset: Cinder's default, known once made) is sent as none.
		spec.RootVolume = &RootVolume{
			SizeGB: int(rv.SizeGB.ValueInt64()), Class: rv.VolumeClass.ValueString(), DeleteOnTermination: rv.DeleteOnTermination.ValueBool(),
		}
	}

	if !m.AllowedAddressPairs.IsNull() {
		var pairs []addressPairModel

		diags.Append(m.AllowedAddressPairs.ElementsAs(ctx, &pairs, false)...)

		for _, p := range pairs {
			spec.AllowedAddressPairs = append(spec.AllowedAddressPairs,
				AddressPair{IPAddress: p.IPAddress.ValueString(), MACAddress: p.MACAddress.ValueString()})
		}
	}

	return spec, diags
}

// knownOf is what the state and private state know of the server.
func knownOf(ctx context.Context, m serverModel, private privateGetter) (Known, diag.Diagnostics) {
	known := Known{
		ServerID: m.ID.ValueString(), PortID: m.PortID.ValueString(), NoServerGroup: !m.ServerGroup.IsNull() && !m.ServerGroup.ValueBool(),
		RootVolumeID: m.RootVolumeID.ValueString(), RootVolumeGoes: rootVolumeGoes(ctx, m.RootVolume),
	}

	var diags diag.Diagnostics
	if !m.Tags.IsNull() && !m.Tags.IsUnknown() {
		diags.Append(m.Tags.ElementsAs(ctx, &known.Tags, false)...)
	}

	raw, more := private.GetKey(ctx, privateFlavor)
	diags.Append(more...)

	if diags.HasError() || raw == nil {
		return known, diags
	}

	var f privateFlavorValue
	if err := json.Unmarshal(raw, &f); err == nil {
		known.FlavorID, known.FlavorName = f.ID, f.Name
	}

	return known, diags
}

type privateGetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

type privateSetter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

type privateFlavorValue struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// setPrivateFlavor records the flavor pair of a server whose flavor ID is known.
func setPrivateFlavor(ctx context.Context, private privateSetter, out *Server) diag.Diagnostics {
	if out.FlavorID == "" || out.FlavorName == "" {
		return nil
	}

	raw, err := json.Marshal(privateFlavorValue{ID: out.FlavorID, Name: out.FlavorName})
	if err != nil {
		var diags diag.Diagnostics
		diags.AddError("Error recording the flavor", err.Error())

		return diags
	}

	return private.SetKey(ctx, privateFlavor, raw)
}

// addNotes turns the core's notes into warnings.
func addNotes(diags *diag.Diagnostics, out *Server) {
	for _, note := range out.Notes {
		diags.AddWarning("Server "+out.Name, note)
	}
}

// userDataHash is the hex SHA-256 of the configured user data; null without user data,
// unknown while it is. The user data itself is never kept.
func userDataHash(v types.String) types.String {
	switch {
	case v.IsUnknown():
		return types.StringUnknown()
	case v.IsNull() || v.ValueString() == "":
		return types.StringNull()
	}

	sum := sha256.Sum256([]byte(v.ValueString()))

	return types.StringValue(hex.EncodeToString(sum[:]))
}

// flatten refreshes m from the server found (out) in region, so that drift shows. prior is
// the plan (after an apply) or the state (after a read): it keeps what the cloud cannot say
// (tags, a power state Nova's status does not map) and the spelling of address pairs.
func flatten(m *serverModel, region string, out *Server, prior serverModel) {
	m.ID = types.StringValue(out.ID)
	m.Name = types.StringValue(out.Name)
	m.Region = types.StringValue(region)
	m.ProviderID = types.StringValue(ProviderID(region, out.ID))
	m.Status = types.StringValue(out.Status)
	m.SSHKey = types.BoolValue(out.KeyName != "")
	m.ServerGroup = types.BoolValue(len(out.ServerGroupIDs) > 0)
	m.PublicIP = types.BoolValue(out.PublicIPAddress != "")
	m.PublicIPAddress = adapter.StringOrNull(out.PublicIPAddress)
	m.Metadata = adapter.StringMap(out.Metadata, prior.Metadata)
	m.UserData = types.StringNull()

	if !prior.Volumes.IsNull() { // attachments are managed only when configured
		m.Volumes = adapter.StringSet(out.VolumeIDs, prior.Volumes)
	}

	m.RootVolumeID = adapter.StringOrNull(out.RootVolumeID)

	switch {
	case out.RootVolumeID == "":
		m.RootVolume = types.ObjectNull(rootVolumeAttrTypes)
	case out.RootVolume != nil: // looked for (made, imported, adopted): as Cinder and Nova say
		m.RootVolume = types.ObjectValueMust(rootVolumeAttrTypes, map[string]attr.Value{
			"size_gb":               types.Int64Value(int64(out.RootVolume.SizeGB)),
			"volume_class":          adapter.StringOrNull(out.RootVolume.Class),
			"delete_on_termination": types.BoolValue(out.RootVolume.DeleteOnTermination),
		})
	}

	// Nova tells a server's host to admins only; a pinned server whose host it tells and that
	// moved (migrated) shows it, and the plan replaces it.
	if out.Host != "" && !prior.Host.IsNull() && !prior.Host.IsUnknown() {
		m.Host = types.StringValue(out.Host)
	}

	if out.Hypervisor != "" && !prior.HypervisorHostname.IsNull() && !prior.HypervisorHostname.IsUnknown() {
		m.HypervisorHostname = types.StringValue(out.Hypervisor)
	}

	if out.ProjectID != "" {
		m.IdentityID = types.StringValue(out.ProjectID)
	}

	if out.FlavorID != "" {
		m.FlavorID = types.StringValue(out.FlavorID)
	}

	if out.ImageID != "" {
		m.ImageID = types.StringValue(out.ImageID)
	}

	switch {
	case out.Status == statusActive:
		m.PowerState = types.StringValue(PowerRunning)
	case out.Status == statusShutoff:
		m.PowerState = types.StringValue(PowerStopped)
	case prior.PowerState.IsNull() || prior.PowerState.IsUnknown():
		m.PowerState = types.StringValue(PowerRunning)
	}

	if out.Port == nil {
		m.PortID = types.StringNull()
		m.MACAddress = types.StringNull()
		m.PrivateIP = types.StringNull()

		return
	}

	m.PortID = types.StringValue(out.Port.ID)
	m.MACAddress = types.StringValue(out.Port.MACAddress)
	m.PrivateIP = adapter.StringOrNull(out.Port.PrivateIP)
	m.NetworkID = types.StringValue(out.Port.NetworkID)
	m.SecurityGroupIDs = adapter.StringSet(out.Port.SecurityGroupIDs, prior.SecurityGroupIDs)
	m.AllowedAddressPairs = flattenPairs(out.Port.AllowedAddressPairs, out.Port.MACAddress, prior.AllowedAddressPairs)
}

var pairAttrTypes = map[string]attr.Type{"ip_address": types.StringType, "mac_address": types.StringType}

// flattenPairs turns the port's pairs into the attribute. A pair on the port's own MAC reads
// back without mac_address (Neutron's default), unless prior spelled it out; prior's
// spelling of an address or MAC that Neutron normalised is kept. No pairs read back as
// prior's null or empty set.
func flattenPairs(pairs []AddressPair, portMAC string, prior types.Set) types.Set {
	var priorPairs []AddressPair

	if !prior.IsNull() && !prior.IsUnknown() {
		for _, e := range prior.Elements() {
			o, ok := e.(types.Object)
			if !ok || o.IsNull() || o.IsUnknown() {
				continue
			}

			ip, _ := o.Attributes()["ip_address"].(types.String)
			mac, _ := o.Attributes()["mac_address"].(types.String)
			priorPairs = append(priorPairs, AddressPair{IPAddress: ip.ValueString(), MACAddress: mac.ValueString()})
		}
	}

	elems := make([]attr.Value, 0, len(pairs))

	for _, p := range pairs {
		ip, mac := types.StringValue(p.IPAddress), types.StringValue(p.MACAddress)
		spelledOut := false

		for _, pp := range priorPairs {
			if !sameAddress(pp.IPAddress, p.IPAddress) {
				continue
			}

			ip = types.StringValue(pp.IPAddress)

			if pp.MACAddress != "" && strings.EqualFold(pp.MACAddress, p.MACAddress) {
				mac = types.StringValue(pp.MACAddress)
				spelledOut = true
			}
		}

		if !spelledOut && strings.EqualFold(p.MACAddress, portMAC) {
			mac = types.StringNull()
		}

		elems = append(elems, types.ObjectValueMust(pairAttrTypes, map[string]attr.Value{"ip_address": ip, "mac_address": mac}))
	}

	return adapter.SetOf(types.ObjectType{AttrTypes: pairAttrTypes}, elems, prior)
}

// sameAddress compares two addresses or CIDRs by value ("10.0.0.1" is "10.0.0.1/32").
func sameAddress(a, b string) bool {
	pa, errA := toPrefix(a)
	pb, errB := toPrefix(b)

	if errA != nil || errB != nil {
		return a == b
	}

	return pa == pb
}

func toPrefix(s string) (netip.Prefix, error) {
	if a, err := netip.ParseAddr(s); err == nil {
		return netip.PrefixFrom(a, a.BitLen()), nil
	}

	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, err
	}

	return p.Masked(), nil
}

// serverModel is the resource's state.
type serverModel struct {
	AllowedAddressPairs types.Set      `tfsdk:"allowed_address_pairs"`
	FlavorID            types.String   `tfsdk:"flavor_id"`
	Host                types.String   `tfsdk:"host"`
	HypervisorHostname  types.String   `tfsdk:"hypervisor_hostname"`
	ID                  types.String   `tfsdk:"id"`
	IdentityID          types.String   `tfsdk:"identity_id"`
	ImageChange         types.String   `tfsdk:"image_change"`
	ImageID             types.String   `tfsdk:"image_id"`
	MACAddress          types.String   `tfsdk:"mac_address"`
	Metadata            types.Map      `tfsdk:"metadata"`
	Name                types.String   `tfsdk:"name"`
	NetworkID           types.String   `tfsdk:"network_id"`
	PortID              types.String   `tfsdk:"port_id"`
	PowerState          types.String   `tfsdk:"power_state"`
	PrivateIP           types.String   `tfsdk:"private_ip"`
	ProviderID          types.String   `tfsdk:"provider_id"`
	PublicIP            types.Bool     `tfsdk:"public_ip"`
	PublicIPAddress     types.String   `tfsdk:"public_ip_address"`
	Region              types.String   `tfsdk:"region"`
	RootVolume          types.Object   `tfsdk:"root_volume"`
	RootVolumeID        types.String   `tfsdk:"root_volume_id"`
	SecurityGroupIDs    types.Set      `tfsdk:"security_group_ids"`
	ServerGroup         types.Bool     `tfsdk:"server_group"`
	SSHKey              types.Bool     `tfsdk:"ssh_key"`
	Status              types.String   `tfsdk:"status"`
	Tags                types.Map      `tfsdk:"tags"`
	Timeouts            timeouts.Value `tfsdk:"timeouts"`
	UserData            types.String   `tfsdk:"user_data"`
	UserDataSHA256      types.String   `tfsdk:"user_data_sha256"`
	Volumes             types.Set      `tfsdk:"volumes"`
}

// rootVolumeModel is root_volume.
type rootVolumeModel struct {
	SizeGB              types.Int64  `tfsdk:"size_gb"`
	VolumeClass         types.String `tfsdk:"volume_class"`
	DeleteOnTermination types.Bool   `tfsdk:"delete_on_termination"`
}

var rootVolumeAttrTypes = map[string]attr.Type{
	"size_gb": types.Int64Type, "volume_class": types.StringType, "delete_on_termination": types.BoolType,
}

// rootVolumeOf reads root_volume; ok is false when it is null or unknown (or could not be read:
// then diags say why).
func rootVolumeOf(ctx context.Context, v types.Object) (rv rootVolumeModel, ok bool, diags diag.Diagnostics) {
	if v.IsNull() || v.IsUnknown() {
		return rv, false, nil
	}

	diags = v.As(ctx, &rv, basetypes.ObjectAsOptions{})

	return rv, !diags.HasError(), diags
}

// rootVolumeGoes tells whether root_volume says Nova deletes the volume with the server.
func rootVolumeGoes(ctx context.Context, v types.Object) bool {
	rv, ok, _ := rootVolumeOf(ctx, v)

	return ok && rv.DeleteOnTermination.ValueBool()
}

// addressPairModel is one of allowed_address_pairs.
type addressPairModel struct {
	IPAddress  types.String `tfsdk:"ip_address"`
	MACAddress types.String `tfsdk:"mac_address"`
}
