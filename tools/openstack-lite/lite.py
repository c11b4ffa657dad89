#!/usr/bin/python3
"""Helpers for openstack-lite (run with Debian's /usr/bin/python3).

  lite.py rabbit-hash PASSWORD        RabbitMQ sha256 password hash for definitions.json
  lite.py bootstrap-identity --state DIR   idempotent Keystone objects, clouds.yaml, env
  lite.py bootstrap-regions --state DIR    idempotent per-region objects (both regions)
  lite.py wait --state DIR            wait until both regions are healthy (discover hosts)
  lite.py status --state DIR --procs  print health, exit 1 if unhealthy

Everything talks to the APIs over plain HTTP through one keystoneauth1 session, so a
bootstrap of many objects costs one Python start-up.
"""
import argparse
import base64
import hashlib
import os
import subprocess
import sys
import time
import uuid

OFF = int(os.environ.get('OPENSTACK_LITE_PORT_OFFSET') or 0)   # see openstack-lite
KEYSTONE = 'http://127.0.0.1:%d' % (5000 + OFF)
P_MYSQL = 3306 + OFF
P_RABBIT = 5672 + OFF
REGIONS = ['RegionOne', 'RegionTwo']
BASE_PORTS = {
    'compute': 8774, 'placement': 8778, 'network': 9696, 'image': 9292,
    'load-balancer': 9876, 'volumev3': 8776, 'block-storage': 8776,
}
SERVICE_NAMES = {
    'compute': 'nova', 'placement': 'placement', 'network': 'neutron', 'image': 'glance',
    'load-balancer': 'octavia', 'volumev3': 'cinderv3', 'block-storage': 'cinder',
}
SERVICE_USERS = ['nova', 'neutron', 'glance', 'placement', 'octavia', 'cinder']
ROLES = ['admin', 'member', 'reader', 'manager', 'service',
         'load-balancer_member', 'load-balancer_observer', 'load-balancer_global_observer',
         'load-balancer_quota_admin', 'load-balancer_admin']
NS = uuid.UUID('5b0e3c7e-3c1f-4c35-9d4e-6f1d0c2a9a11')  # openstack-lite's uuid5 namespace
FLAVORS = [
    # name, vcpus, ram MiB, disk GiB, public, extra specs
    ('m1.tiny', 1, 512, 1, True, {}),
    ('m1.small', 2, 2048, 10, True, {}),
    ('m1.large', 4, 8192, 40, True, {}),
    ('g1.large', 4, 16384, 40, True, {'resources:VGPU': '1', 'trait:CUSTOM_GPU_ANY': 'required'}),
    ('amphora', 1, 1024, 2, False, {}),
]
TIMEOUT = 180


def log(msg):
    print('[openstack-lite %s] %s' % (time.strftime('%H:%M:%S'), msg), file=sys.stderr, flush=True)


def region_num(region):
    return REGIONS.index(region) + 1


def url(service, region, path=''):
    port = BASE_PORTS[service] + 10000 * REGIONS.index(region) + OFF
    base = 'http://127.0.0.1:%d' % port
    return base + path


def endpoint_url(service, region):
    if service == 'compute':
        return url(service, region, '/v2.1')
    if service in ('volumev3', 'block-storage'):
        return url(service, region, '/v3/%(project_id)s')
    return url(service, region)


def read_secrets(state):
    s = {}
    with open(os.path.join(state, 'secrets.env')) as f:
        for line in f:
            line = line.strip()
            if line and '=' in line:
                k, v = line.split('=', 1)
                s[k] = v
    return s


def session(username='admin', password='admin', project='admin'):
    from keystoneauth1 import session as ks_session
    from keystoneauth1.identity import v3
    auth = v3.Password(auth_url=KEYSTONE + '/v3', username=username, password=password,
                       project_name=project, user_domain_id='default', project_domain_id='default')
    return ks_session.Session(auth=auth, timeout=60)


class Api(object):
    """Tiny REST helper over a keystoneauth1 session, absolute URLs."""

    def __init__(self, sess):
        self.s = sess

    def req(self, method, u, ok=(200, 201, 202, 204), **kw):
        kw.setdefault('raise_exc', False)
        for attempt in range(30):
            r = self.s.request(u, method, **kw)
            if r.status_code in (502, 503, 504):
                time.sleep(1)
                continue
            break
        if ok is not None and r.status_code not in ok:
            raise RuntimeError('%s %s -> %s %s' % (method, u, r.status_code, r.text[:500]))
        return r

    def get(self, u, **kw):
        return self.req('GET', u, **kw).json()

    def post(self, u, body, **kw):
        r = self.req('POST', u, json=body, **kw)
        return r.json() if r.content else {}

    def put(self, u, body=None, **kw):
        r = self.req('PUT', u, json=body, **kw) if body is not None else self.req('PUT', u, **kw)
        return r.json() if r.content else {}


def wait_http(u, timeout=TIMEOUT, what=None):
    import requests
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        try:
            r = requests.get(u, timeout=5)
            if r.status_code < 500:
                return True
            last = r.status_code
        except Exception as e:  # noqa
            last = type(e).__name__
        time.sleep(0.5)
    raise RuntimeError('timed out waiting for %s (%s): %s' % (what or u, u, last))


# ---------------------------------------------------------------------------------------
# identity
def ensure_by_name(api, coll, key, name, body, extra_query=''):
    items = api.get('%s/v3/%s?name=%s%s' % (KEYSTONE, coll, name, extra_query))[coll]
    if items:
        return items[0]
    return api.post('%s/v3/%s' % (KEYSTONE, coll), {key: body})[key]


def can_auth(username, password, project, domain='default'):
    import requests
    body = {'auth': {'identity': {'methods': ['password'], 'password': {'user': {
        'name': username, 'domain': {'id': domain}, 'password': password}}},
        'scope': {'project': {'name': project, 'domain': {'id': domain}}}}}
    r = requests.post(KEYSTONE + '/v3/auth/tokens', json=body, timeout=30)
    return r.status_code == 201


# (user, grants, grants to revoke): kind 'project' is the user's own project, 'domain' the
# managed domain, 'inherited' the managed domain inherited to its projects.
SERVICE_USER_GRANTS = [
    ('unikorn', [('project', 'admin'), ('domain', 'admin')], [('inherited', 'admin')]),
    ('unikorn-inherited', [('project', 'member'), ('domain', 'admin'), ('inherited', 'admin')], []),
    ('unikorn-nogrant', [('project', 'admin')], []),
]


def service_home(name):
    return 'unikorn-service' if name == 'unikorn' else name + '-home'


def assignment_url(kind, project_id, domain_id, user_id, role_id):
    if kind == 'project':
        return '%s/v3/projects/%s/users/%s/roles/%s' % (KEYSTONE, project_id, user_id, role_id)
    if kind == 'domain':
        return '%s/v3/domains/%s/users/%s/roles/%s' % (KEYSTONE, domain_id, user_id, role_id)
    return ('%s/v3/OS-INHERIT/domains/%s/users/%s/roles/%s/inherited_to_projects'
            % (KEYSTONE, domain_id, user_id, role_id))


def ensure_service_user(api, name, password):
    """A service user in Default with a home project of its own."""
    home_name = service_home(name)
    home = ensure_by_name(api, 'projects', 'project', home_name,
                          {'name': home_name, 'domain_id': 'default',
                           'description': 'home of the %s service user' % name}, '&domain_id=default')
    user = ensure_by_name(api, 'users', 'user', name,
                          {'name': name, 'domain_id': 'default', 'password': password,
                           'default_project_id': home['id']}, '&domain_id=default')
    return home, user


def bootstrap_identity(api, secrets):
    ids = {}
    # regions
    for region in REGIONS:
        r = api.req('GET', '%s/v3/regions/%s' % (KEYSTONE, region), ok=None)
        if r.status_code == 404:
            api.post('%s/v3/regions' % KEYSTONE, {'region': {'id': region}})
    # roles
    roles = {}
    for name in ROLES:
        roles[name] = ensure_by_name(api, 'roles', 'role', name, {'name': name})['id']
    api.req('PUT', '%s/v3/roles/%s/implies/%s' % (KEYSTONE, roles['manager'], roles['member']),
            ok=(200, 201, 204, 409))
    ids['roles'] = roles
    # service project and users
    service = ensure_by_name(api, 'projects', 'project', 'service',
                             {'name': 'service', 'domain_id': 'default',
                              'description': 'OpenStack services'}, '&domain_id=default')
    ids['service_project'] = service['id']
    pw = secrets['SERVICE_PASSWORD']
    for name in SERVICE_USERS:
        user = ensure_by_name(api, 'users', 'user', name,
                              {'name': name, 'domain_id': 'default', 'password': pw,
                               'default_project_id': service['id']}, '&domain_id=default')
        for role in ('admin', 'service'):
            api.put('%s/v3/projects/%s/users/%s/roles/%s'
                    % (KEYSTONE, service['id'], user['id'], roles[role]))
        if not can_auth(name, pw, 'service'):
            api.req('PATCH', '%s/v3/users/%s' % (KEYSTONE, user['id']),
                    json={'user': {'password': pw}})
    # catalog
    services = {s['type']: s for s in api.get(KEYSTONE + '/v3/services')['services']}
    wanted = {'identity': 'keystone'}
    wanted.update(SERVICE_NAMES)
    for stype, sname in wanted.items():
        if stype not in services:
            services[stype] = api.post(KEYSTONE + '/v3/services',
                                       {'service': {'type': stype, 'name': sname, 'enabled': True}})['service']
    endpoints = api.get(KEYSTONE + '/v3/endpoints')['endpoints']
    for stype in wanted:
        sid = services[stype]['id']
        for region in REGIONS:
            u = KEYSTONE + '/v3' if stype == 'identity' else endpoint_url(stype, region)
            for iface in ('public', 'internal', 'admin'):
                found = [e for e in endpoints if e['service_id'] == sid and e['region_id'] == region
                         and e['interface'] == iface]
                if not found:
                    api.post(KEYSTONE + '/v3/endpoints', {'endpoint': {
                        'service_id': sid, 'region_id': region, 'interface': iface, 'url': u,
                        'enabled': True}})
                else:
                    for e in found[1:]:
                        api.req('DELETE', KEYSTONE + '/v3/endpoints/' + e['id'])
                    if found[0]['url'] != u:
                        api.req('PATCH', KEYSTONE + '/v3/endpoints/' + found[0]['id'],
                                json={'endpoint': {'url': u}})
    # the managed domain and the provider's service user
    domain = ensure_by_name(api, 'domains', 'domain', 'unikorn',
                            {'name': 'unikorn', 'description': 'Unikorn managed domain'})
    ids['domain'] = domain['id']
    upw = secrets['UNIKORN_PASSWORD']
    # The provider's service users, one per grant model (see README.md, "Service users"):
    # unikorn, the one every test shares, is a *cloud admin*: admin on its own project and on
    # the managed domain, nothing inherited. unikorn-inherited holds the *domain-inherited
    # admin* model (member only on its own project). unikorn-nogrant lacks the managed
    # domain's grant, for the Configure-time diagnostic.
    users = {}
    for name, grants, revoke in SERVICE_USER_GRANTS:
        home, user = ensure_service_user(api, name, upw)
        for kind, role in grants:
            api.put(assignment_url(kind, home['id'], domain['id'], user['id'], roles[role]))
        for kind, role in revoke:  # a grant an earlier version of this script made
            api.req('DELETE', assignment_url(kind, home['id'], domain['id'], user['id'], roles[role]),
                    ok=(204, 404))
        users[name] = (home, user)
    home, user = users['unikorn']
    for name, (h, u) in users.items():
        if not can_auth(name, upw, h['name']):
            api.req('PATCH', '%s/v3/users/%s' % (KEYSTONE, u['id']), json={'user': {'password': upw}})
    ids['unikorn_user'] = user['id']
    ids['unikorn_project'] = home['id']
    return ids


# ---------------------------------------------------------------------------------------
# per region
def flavor_id(name):
    return str(uuid.uuid5(NS, 'flavor:' + name))


def tiny_image_bytes(name):
    head = ('openstack-lite test image %s\n' % name).encode()
    return head + bytes(8192 - len(head))


def ensure_image(api, region, name, visibility, owner=None, tags=(), props=None):
    g = url('image', region)
    props = props or {}
    images = api.get('%s/v2/images?name=%s' % (g, name))['images']
    if owner:
        images = [i for i in images if i.get('owner') == owner]
    active = [i for i in images if i['status'] == 'active']
    for i in images:
        if i['status'] != 'active':  # left over from an interrupted upload
            api.req('DELETE', '%s/v2/images/%s' % (g, i['id']), ok=(204, 404, 403, 409))
    if active:
        img = active[0]
        patch = [{'op': 'add', 'path': '/' + k, 'value': v} for k, v in sorted(props.items())
                 if img.get(k) != v]
        if patch:  # an image made by an earlier version of this script
            api.req('PATCH', '%s/v2/images/%s' % (g, img['id']), json=patch,
                    headers={'Content-Type': 'application/openstack-images-v2.1-json-patch'})
        return img['id']
    body = dict(props, name=name, disk_format='raw', container_format='bare',
                visibility=visibility, tags=list(tags))
    if owner:
        body['owner'] = owner
    img = api.post('%s/v2/images' % g, body)
    api.req('PUT', '%s/v2/images/%s/file' % (g, img['id']), data=tiny_image_bytes(name),
            headers={'Content-Type': 'application/octet-stream'})
    return img['id']


def ensure_network(api, region, name, body, project=None):
    n = url('network', region)
    q = '%s/v2.0/networks?name=%s' % (n, name)
    if project:
        q += '&project_id=' + project
    nets = [x for x in api.get(q)['networks'] if x['name'] == name]
    if nets:
        return nets[0]['id']
    b = dict(body, name=name)
    if project:
        b['project_id'] = project
    return api.post('%s/v2.0/networks' % n, {'network': b})['network']['id']


def ensure_subnet(api, region, name, net_id, body, project=None):
    n = url('network', region)
    subs = [x for x in api.get('%s/v2.0/subnets?network_id=%s' % (n, net_id))['subnets']
            if x['name'] == name]
    if subs:
        return subs[0]['id']
    b = dict(body, name=name, network_id=net_id, ip_version=4)
    if project:
        b['project_id'] = project
    return api.post('%s/v2.0/subnets' % n, {'subnet': b})['subnet']['id']


def bootstrap_region(api, region, ids, state):
    r = region_num(region)
    svc = ids['service_project']
    nova = url('compute', region, '/v2.1')
    neutron = url('network', region)
    for what, u in (('nova-api', nova), ('neutron-server', neutron),
                    ('glance-api', url('image', region)), ('placement', url('placement', region)),
                    ('octavia-api', url('load-balancer', region)), ('cinder-api', url('volumev3', region))):
        wait_http(u, what='%s %s' % (region, what))

    # flavors
    existing = {f['id']: f for f in
                api.get(nova + '/flavors/detail?is_public=None')['flavors']}
    for name, vcpus, ram, disk, public, specs in FLAVORS:
        fid = flavor_id(name)
        if fid not in existing:
            api.post(nova + '/flavors', {'flavor': {
                'name': name, 'id': fid, 'vcpus': vcpus, 'ram': ram, 'disk': disk,
                'os-flavor-access:is_public': public}})
        if specs:
            cur = api.get('%s/flavors/%s/os-extra_specs' % (nova, fid))['extra_specs']
            if any(cur.get(k) != v for k, v in specs.items()):
                api.post('%s/flavors/%s/os-extra_specs' % (nova, fid), {'extra_specs': specs})
        if not public:
            acc = api.get('%s/flavors/%s/os-flavor-access' % (nova, fid))['flavor_access']
            if not any(a['tenant_id'] == svc for a in acc):
                api.post('%s/flavors/%s/action' % (nova, fid),
                         {'addTenantAccess': {'tenant': svc}}, ok=(200, 409))

    # images
    # Properties of the Unikorn image schema, so that unikorn_image finds it (unsigned).
    ensure_image(api, region, 'cirros-tiny', 'public', props={
        'unikorn:os:kernel': 'linux', 'unikorn:os:family': 'cirros', 'unikorn:os:distro': 'cirros',
        'unikorn:os:version': '0.6', 'unikorn:virtualization': 'any'})
    ensure_image(api, region, 'amphora-x64-haproxy', 'private', owner=svc, tags=['amphora'])

    # external network
    pub = ensure_network(api, region, 'public', {
        'provider:network_type': 'flat', 'provider:physical_network': 'public',
        'router:external': True, 'shared': False})
    ensure_subnet(api, region, 'public-subnet', pub, {
        'cidr': '203.0.113.0/24', 'gateway_ip': '203.0.113.1', 'enable_dhcp': False,
        'allocation_pools': [{'start': '203.0.113.10', 'end': '203.0.113.250'}]})

    # Octavia: management network and security group in the service project
    mgmt = ensure_network(api, region, 'lb-mgmt-net', {}, project=svc)
    ensure_subnet(api, region, 'lb-mgmt-subnet', mgmt, {
        'cidr': '172.31.0.0/16', 'enable_dhcp': False}, project=svc)
    sgs = [x for x in api.get('%s/v2.0/security-groups?name=lb-mgmt-sec-grp&project_id=%s'
                                % (neutron, svc))['security_groups'] if x['name'] == 'lb-mgmt-sec-grp']
    if sgs:
        sg = sgs[0]['id']
    else:
        sg = api.post(neutron + '/v2.0/security-groups', {'security_group': {
            'name': 'lb-mgmt-sec-grp', 'project_id': svc,
            'description': 'Octavia amphora management'}})['security_group']['id']
        rules = [{'security_group_id': sg, 'direction': 'ingress', 'ethertype': 'IPv4',
                  'protocol': p, 'port_range_min': port, 'port_range_max': port}
                 for p, port in (('tcp', 22), ('tcp', 9443), ('udp', 5555))]
        api.post(neutron + '/v2.0/security-group-rules', {'security_group_rules': rules})

    # quotas: every load balancer costs the service project a server, ports and a group
    api.put('%s/v2.0/quotas/%s' % (neutron, svc), {'quota': {
        'network': -1, 'subnet': -1, 'port': -1, 'router': -1, 'floatingip': -1,
        'security_group': -1, 'security_group_rule': -1}})
    api.put('%s/os-quota-sets/%s' % (nova, svc), {'quota_set': {
        'instances': -1, 'cores': -1, 'ram': -1, 'server_groups': -1,
        'server_group_members': -1}})

    conf = ('[controller_worker]\namp_flavor_id = %s\namp_boot_network_list = %s\n'
            'amp_secgroup_list = %s\namp_image_owner_id = %s\n'
            % (flavor_id('amphora'), mgmt, sg, svc))
    path = os.path.join(state, 'etc', 'r%d' % r, 'octavia-ids.conf')
    old = open(path).read() if os.path.exists(path) else ''
    if old != conf:
        with open(path + '.tmp', 'w') as f:
            f.write(conf)
        os.rename(path + '.tmp', path)
        if old:
            open(os.path.join(state, 'run', 'octavia-ids-changed-r%d' % r), 'w').close()
    log('%s bootstrapped' % region)


def write_client_files(state, secrets):
    # region_name is the default region (what gophercloud's clientconfig reads);
    # `regions` lets openstacksdk / the openstack CLI accept --os-region-name RegionTwo.
    clouds = os.path.join(state, 'clouds.yaml')
    text = """clouds:
  admin:
    auth:
      auth_url: {ks}/v3
      username: admin
      password: admin
      project_name: admin
      user_domain_name: Default
      project_domain_name: Default
    region_name: RegionOne
    regions: [RegionOne, RegionTwo]
    identity_api_version: 3
    interface: public
""".format(ks=KEYSTONE)
    for name, _, _ in SERVICE_USER_GRANTS:
        text += """  {name}:
    auth:
      auth_url: {ks}/v3
      username: {name}
      password: "{pw}"
      project_name: {home}
      user_domain_name: Default
      project_domain_name: Default
    region_name: RegionOne
    regions: [RegionOne, RegionTwo]
    identity_api_version: 3
    interface: public
""".format(name=name, ks=KEYSTONE, pw=secrets['UNIKORN_PASSWORD'], home=service_home(name))
    old = open(clouds).read() if os.path.exists(clouds) else None
    if old != text:
        fd = os.open(clouds + '.tmp', os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, 'w') as f:
            f.write(text)
        os.rename(clouds + '.tmp', clouds)
    env = os.path.join(state, 'env')
    with open(env + '.tmp', 'w') as f:
        f.write('export OS_CLIENT_CONFIG_FILE=%s\n' % clouds)
        f.write('export OS_CLOUD=unikorn\n')
        f.write('export OS_REGION_NAME=RegionOne\n')
        f.write('export UNIKORN_DOMAIN=unikorn\n')
        f.write('export UNIKORN_REGIONS=%s\n' % ','.join(REGIONS))
    os.rename(env + '.tmp', env)


def cmd_bootstrap_identity(args):
    secrets = read_secrets(args.state)
    wait_http(KEYSTONE + '/v3', what='keystone')
    t = time.time()
    bootstrap_identity(Api(session()), secrets)
    write_client_files(args.state, secrets)
    log('identity bootstrapped in %.1f s' % (time.time() - t))
    return 0


def cmd_bootstrap_regions(args):
    secrets = read_secrets(args.state)
    wait_http(KEYSTONE + '/v3', what='keystone')
    api = Api(session())
    svc = api.get(KEYSTONE + '/v3/projects?name=service&domain_id=default')['projects']
    if not svc:
        raise RuntimeError('no service project: identity bootstrap did not run')
    ids = {'service_project': svc[0]['id']}
    import threading
    errors = []

    def run(region):
        try:
            bootstrap_region(Api(session()), region, ids, args.state)
        except Exception as e:  # noqa
            errors.append('%s: %s' % (region, e))

    threads = [threading.Thread(target=run, args=(r,)) for r in REGIONS]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    if errors:
        for e in errors:
            log('bootstrap error: ' + e)
        return 1
    return 0


# ---------------------------------------------------------------------------------------
# health
def db_query(secrets, sql):
    import pymysql
    c = pymysql.connect(host='127.0.0.1', port=P_MYSQL, user='openstack', password=secrets['DB_PASSWORD'],
                        connect_timeout=5)
    try:
        with c.cursor() as cur:
            cur.execute(sql)
            return cur.fetchall()
    finally:
        c.close()


def queue_consumers(secrets, vhost, queue):
    import kombu
    conn = kombu.Connection('amqp://openstack:%s@127.0.0.1:%d/%s'
                            % (secrets['RABBIT_PASSWORD'], P_RABBIT, vhost), connect_timeout=5)
    try:
        ch = conn.channel()
        try:
            _, _, consumers = ch.queue_declare(queue=queue, passive=True)
            return consumers
        except Exception:  # noqa
            return 0
    finally:
        conn.release()


API_CHECKS = [
    # service, authenticated path, what
    ('compute', '/v2.1/os-services', 'nova-api'),
    ('placement', '/resource_providers', 'placement'),
    ('network', '/v2.0/networks?limit=1', 'neutron-server'),
    ('image', '/v2/images?limit=1', 'glance-api'),
    ('load-balancer', '/v2/lbaas/loadbalancers?limit=1', 'octavia-api'),
    ('volumev3', '/v3/{project}/types', 'cinder-api'),
]


def check_region(api, secrets, region, project_id, discover=False, state=None, since=0):
    """Returns a list of (what, ok, detail)."""
    r = region_num(region)
    out = []
    for service, path, what in API_CHECKS:
        u = url(service, region, path.format(project=project_id))
        try:
            resp = api.s.request(u, 'GET', raise_exc=False,
                                 headers={'OpenStack-API-Version': 'placement 1.39'}
                                 if service == 'placement' else None)
            out.append((what, resp.status_code == 200, 'HTTP %d' % resp.status_code))
        except Exception as e:  # noqa
            out.append((what, False, type(e).__name__))
    host = 'r%d-compute' % r
    try:
        svcs = api.get(url('compute', region, '/v2.1/os-services'))['services']
        # with --since: a heartbeat newer than that (not one left from before a restart)
        fresh = time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(since))
        st = {s['binary']: (s['state'], s['updated_at'] or '') for s in svcs}
        for b in ('nova-conductor', 'nova-scheduler', 'nova-compute'):
            svc_state, updated = st.get(b, ('missing', ''))
            ok = svc_state == 'up' and updated >= fresh
            out.append((b, ok, 'service %s%s' % (svc_state, '' if ok or svc_state != 'up'
                                                 else ', stale heartbeat')))
    except Exception as e:  # noqa
        out.append(('nova services', False, str(e)[:100]))
    try:
        # cinder-scheduler and the volume backend (host r<N>-cinder@lite), heartbeat fresh
        svcs = api.get(url('volumev3', region, '/v3/%s/os-services' % project_id))['services']
        fresh = time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(since))
        st = {s['binary']: (s['state'], s['updated_at'] or '') for s in svcs
              if s['host'] in ('r%d-cinder' % r, 'r%d-cinder@lite' % r)}
        for b in ('cinder-scheduler', 'cinder-volume'):
            svc_state, updated = st.get(b, ('missing', ''))
            ok = svc_state == 'up' and updated >= fresh
            out.append((b, ok, 'service %s%s' % (svc_state, '' if ok or svc_state != 'up'
                                                 else ', stale heartbeat')))
    except Exception as e:  # noqa
        out.append(('cinder services', False, str(e)[:100]))
    try:
        nodes = db_query(secrets, "SELECT hypervisor_hostname FROM r%d_nova.compute_nodes "
                                  "WHERE deleted = 0 AND host = '%s'" % (r, host))
        mapped = db_query(secrets, "SELECT host FROM r%d_nova_api.host_mappings WHERE host = '%s'"
                          % (r, host))
        if nodes and not mapped and discover:
            log('%s: cell_v2 discover_hosts' % region)
            with open(os.path.join(state, 'log', 'discover-hosts-r%d.log' % r), 'a') as lf:
                subprocess.run([sys.executable, '-c',
                                "import sys; sys.argv[0]='nova-manage'; "
                                "from nova.cmd.manage import main; sys.exit(main())",
                                '--config-file', os.path.join(state, 'etc', 'r%d' % r, 'nova.conf'),
                                'cell_v2', 'discover_hosts', '--verbose'], check=False,
                               stdout=lf, stderr=subprocess.STDOUT)
            mapped = db_query(secrets, "SELECT host FROM r%d_nova_api.host_mappings WHERE host = '%s'"
                              % (r, host))
        out.append(('compute %s' % host, bool(nodes) and bool(mapped),
                    'registered=%s discovered=%s' % (bool(nodes), bool(mapped))))
    except Exception as e:  # noqa
        out.append(('compute %s' % host, False, str(e)[:100]))
    try:
        rps = api.get(url('placement', region, '/resource_providers?name=%s' % host))['resource_providers']
        out.append(('placement provider', bool(rps), '%d provider(s)' % len(rps)))
    except Exception as e:  # noqa
        out.append(('placement provider', False, str(e)[:100]))
    try:
        n = queue_consumers(secrets, 'r%d' % r, 'octavia_provisioning_v2')
        out.append(('octavia-worker', n > 0, '%d consumer(s)' % n))
    except Exception as e:  # noqa
        out.append(('octavia-worker', False, str(e)[:100]))
    return out


def cmd_wait(args):
    secrets = read_secrets(args.state)
    wait_http(KEYSTONE + '/v3', what='keystone')
    api = Api(session())
    project_id = api.s.get_project_id()
    deadline = time.time() + args.timeout
    while True:
        bad = []
        for region in REGIONS:
            for what, ok, detail in check_region(api, secrets, region, project_id,
                                                 discover=True, state=args.state,
                                                 since=args.since):
                if not ok:
                    bad.append('%s %s (%s)' % (region, what, detail))
        if not bad:
            log('both regions healthy')
            return 0
        if time.time() > deadline:
            for b in bad:
                log('unhealthy: ' + b)
            return 1
        time.sleep(1)


def cmd_status(args):
    ok_all = True
    try:
        secrets = read_secrets(args.state)
        import requests
        r = requests.get(KEYSTONE + '/v3', timeout=5)
        print('  %-10s %-22s %-4s %s' % ('global', 'keystone', 'ok' if r.status_code == 200 else 'FAIL',
                                         'HTTP %d' % r.status_code))
        api = Api(session())
        project_id = api.s.get_project_id()
        for region in REGIONS:
            for what, ok, detail in check_region(api, secrets, region, project_id):
                ok_all = ok_all and ok
                print('  %-10s %-22s %-4s %s' % (region, what, 'ok' if ok else 'FAIL', detail))
    except Exception as e:  # noqa
        print('  keystone unreachable or broken: %s' % e)
        ok_all = False
    # processes (PID files checked the same way as the shell script)
    for name in (args.procs or '').split():
        pidfile = os.path.join(args.state, 'run', name + '.pid')
        alive = False
        try:
            pid, start = open(pidfile).read().split()
            with open('/proc/%s/stat' % pid) as f:
                alive = f.read().rsplit(') ', 1)[1].split()[19] == start
        except Exception:  # noqa
            pass
        if not alive:
            ok_all = False
            print('  process %s is not running' % name)
    print('healthy' if ok_all else 'NOT healthy')
    return 0 if ok_all else 1


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest='cmd', required=True)
    h = sub.add_parser('rabbit-hash')
    h.add_argument('password')
    for name in ('bootstrap-identity', 'bootstrap-regions', 'wait', 'status'):
        s = sub.add_parser(name)
        s.add_argument('--state', required=True)
        s.add_argument('--timeout', type=int, default=TIMEOUT)
        s.add_argument('--procs', default='')
        s.add_argument('--since', type=float, default=0)
    args = p.parse_args()
    if args.cmd == 'rabbit-hash':
        salt = os.urandom(4)
        print(base64.b64encode(salt + hashlib.sha256(salt + args.password.encode()).digest()).decode())
        return 0
    return {'bootstrap-identity': cmd_bootstrap_identity, 'bootstrap-regions': cmd_bootstrap_regions,
            'wait': cmd_wait, 'status': cmd_status}[args.cmd](args)


if __name__ == '__main__':
    sys.exit(main())
