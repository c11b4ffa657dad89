"""An agentless ML2 mechanism driver for openstack-lite.

There is no dataplane and no L2 agent: this driver binds every port that has a
binding:host_id to the first segment offered, with vif_type "ovs", and marks it
ACTIVE, so that Nova (fake virt driver) and Octavia can use real Neutron ports.
"""
from neutron_lib import constants
from neutron_lib.api.definitions import portbindings
from neutron_lib.plugins.ml2 import api


class LiteMechanismDriver(api.MechanismDriver):

    def initialize(self):
        pass

    @property
    def connectivity(self):
        return portbindings.CONNECTIVITY_L2

    def bind_port(self, context):
        if not context.host:
            return
        for segment in context.segments_to_bind:
            context.set_binding(
                segment[api.ID],
                portbindings.VIF_TYPE_OVS,
                {portbindings.CAP_PORT_FILTER: True,
                 portbindings.OVS_HYBRID_PLUG: False},
                status=constants.PORT_STATUS_ACTIVE)
            return
