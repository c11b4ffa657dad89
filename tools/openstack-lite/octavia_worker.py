#!/usr/bin/python3
"""octavia-worker for openstack-lite: octavia.cmd.octavia_worker.main with only the v2
consumer (Zed's `amphora` provider driver is the v2 one; the v1 consumer would be one
more idle process)."""
import sys

import cotyledon
from cotyledon import oslo_config_glue
from oslo_config import cfg

from octavia.common import service as octavia_service
from octavia.controller.queue.v2 import consumer as consumer_v2


def main():
    sys.argv[0] = 'octavia-worker'
    octavia_service.prepare_service(sys.argv)
    sm = cotyledon.ServiceManager()
    sm.add(consumer_v2.ConsumerService, workers=cfg.CONF.controller_worker.workers,
           args=(cfg.CONF,))
    oslo_config_glue.setup(sm, cfg.CONF, reload_method="mutate")
    sm.run()


if __name__ == '__main__':
    main()
