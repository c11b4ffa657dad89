"""A Cinder volume driver for the test beds: volumes that hold no data, on no block device.

Cinder's own functional-test driver (cinder.tests.fake_driver.FakeLoggingVolumeDriver, shipped
in python3-cinder of Debian 12 and 13 alike) makes volumes `available`, exports them to Nova's
fake virt driver (attach, detach) and deletes them without touching a disk. Two of its LVM
parent's steps still reach for real data or a real device, and fail on a bed:

- create from an image (and boot from volume): Cinder downloads the image and inspects it
  (2025.1 through a privsep helper, which a bed does not run), then LVMVolumeDriver converts it
  with qemu-img into /dev/mapper/cinder--volumes-volume--<id>, which does not exist;
- extend (grow): LVMVolumeDriver.extend_volume calls the volume group's extend_volume, which the
  fake volume group (cinder.tests.unit.brick.fake_lvm.FakeBrickLVM) does not have.

LiteVolumeDriver makes a volume from an image by "cloning" it (clone_image, the hook through
which a backend that holds images makes such volumes without a download): the volume is made as
an empty one is. Cinder still checks the image's virtual size against the volume's size,
records the image's metadata on the volume and marks it bootable. Extend is a no-op. A volume's
size is Cinder's record, as everywhere with this driver; nothing boots from it, as the fake
virt driver boots nothing.

cinder.conf of each region: enabled_backends = lite, and in [lite]
volume_driver = openstack_lite_cinder.LiteVolumeDriver (cinder-volume loads the class by its
dotted path; this directory is on its PYTHONPATH).
"""
from oslo_log import log as logging

from cinder.tests import fake_driver

LOG = logging.getLogger(__name__)


class LiteVolumeDriver(fake_driver.FakeLoggingVolumeDriver):

    def clone_image(self, context, volume, image_location, image_meta, image_service):
        LOG.info('openstack-lite: volume %s from image %s: made empty', volume.id, image_meta.get('id'))
        return self.create_volume(volume) or {}, True

    def extend_volume(self, volume, new_size):
        LOG.info('openstack-lite: volume %s extended to %s GiB', volume.id, new_size)
