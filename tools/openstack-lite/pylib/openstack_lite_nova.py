"""Nova's fake virt driver, made fit for the acceptance tests of both beds.

Snapshots (both beds): nova.virt.fake.FakeDriver.snapshot() uploads nothing, so a server
create-image leaves its Glance image queued forever. SnapshotFakeDriver's snapshot() uploads a
few bytes through Nova's image API, as a real driver uploads the server's disk, so the image
goes active. compute_driver = fake.SnapshotFakeDriver (Zed).

Node identity (2025.1 bed): since 2023.1 nova-compute refuses to start again on a host whose
compute node it already registered unless it finds its node identity (the `compute_id` file in
state_path), and nova.virt.fake.FakeDriver reports a node UUID that is random per process (a
uuidsentinel) and never writes that file. StableFakeDriver (which snapshots like
SnapshotFakeDriver) reports the persistent local node identity instead:
nova.virt.node.get_local_node_uuid() reads `compute_id`, or generates and writes it on the
first start. One node per host (the host name), as FakeDriver has.
compute_driver = fake.StableFakeDriver (2025.1).

Nova loads compute drivers from nova.virt only: importing this module (after nova.cmd.compute,
which monkey-patches) registers the classes in nova.virt.fake.
"""
import io

from nova.image import glance
from nova.virt import fake

# What a snapshot uploads: enough for Glance to hold data and mark the image active.
SNAPSHOT_DATA = b'openstack-lite fake snapshot\n'


class SnapshotFakeDriver(fake.FakeDriver):

    def snapshot(self, context, instance, image_id, update_task_state):
        # FakeDriver checks the instance and moves the task to image_uploading.
        super(SnapshotFakeDriver, self).snapshot(context, instance, image_id, update_task_state)
        image_api = glance.API()
        meta = image_api.get(context, image_id)
        formats = {
            'disk_format': meta.get('disk_format') or 'raw',
            'container_format': meta.get('container_format') or 'bare',
        }
        image_api.update(context, image_id, formats, data=io.BytesIO(SNAPSHOT_DATA), purge_props=False)


fake.SnapshotFakeDriver = SnapshotFakeDriver

try:
    import nova.virt.node
except ImportError:  # Zed: no node identity file
    pass
else:
    class StableFakeDriver(SnapshotFakeDriver):

        def get_nodenames_by_uuid(self, refresh=False):
            node_uuid = nova.virt.node.get_local_node_uuid()
            return {node_uuid: n for n in self.get_available_nodes()}

        def get_available_resource(self, nodename):
            status = super(StableFakeDriver, self).get_available_resource(nodename)
            if status:
                status['uuid'] = nova.virt.node.get_local_node_uuid()
            return status

    fake.StableFakeDriver = StableFakeDriver
