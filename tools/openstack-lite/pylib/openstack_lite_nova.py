"""Nova's fake virt driver with a node identity that survives a restart (2025.1 bed).

Since 2023.1 nova-compute refuses to start again on a host whose compute node it already
registered unless it finds its node identity (the `compute_id` file in state_path), and
nova.virt.fake.FakeDriver reports a node UUID that is random per process (a uuidsentinel)
and never writes that file. This driver reports the persistent local node identity
instead: nova.virt.node.get_local_node_uuid() reads `compute_id`, or generates and writes
it on the first start. One node per host (the host name), as FakeDriver has.

Nova loads compute drivers from nova.virt only: importing this module (after
nova.cmd.compute, which monkey-patches) registers the class as nova.virt.fake.StableFakeDriver,
so compute_driver = fake.StableFakeDriver.
"""
import nova.virt.node
from nova.virt import fake


class FakeDriver(fake.FakeDriver):

    def get_nodenames_by_uuid(self, refresh=False):
        node_uuid = nova.virt.node.get_local_node_uuid()
        return {node_uuid: n for n in self.get_available_nodes()}

    def get_available_resource(self, nodename):
        status = super(FakeDriver, self).get_available_resource(nodename)
        if status:
            status['uuid'] = nova.virt.node.get_local_node_uuid()
        return status


fake.StableFakeDriver = FakeDriver
