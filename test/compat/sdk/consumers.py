"""The calls Ironless's consumers make, through openstacksdk's baremetal proxy.

Nova's ironic driver (2024.1+, one compute service per `[ironic]shard`) refreshes its node cache
with `nodes(fields=_NODE_FIELDS, shard=...)`, finds an instance's node with
`nodes(instance_id=..., fields=...)`, reads one with `get_node(..., fields=...)`, patches
`instance_info` and `instance_uuid` with `patch_node` and deploys with
`set_node_provision_state`. metal3's baremetal-operator pages through every node with `limit`
and `marker`, one request per page.

Run by test/compat/sdk-consumers.test.ts with Debian's python3-openstacksdk:
`python3 consumers.py <endpoint> <command> [args]`; each command prints one JSON document.
"""

import itertools
import json
import sys

import openstack
from openstack import resource
from openstack.baremetal.v1 import node as _node

# Nova's _NODE_FIELDS (nova/virt/ironic/driver.py).
NOVA_FIELDS = ('uuid', 'power_state', 'target_power_state', 'provision_state',
               'target_provision_state', 'last_error', 'maintenance',
               'properties', 'instance_uuid', 'traits', 'resource_class')


# Debian 12's openstacksdk (0.101) predates API 1.82: its Node resource stops at 1.76 and has no
# shard filter, which nova 2024.1 gets from a newer openstacksdk. Give it the same query
# parameter, field and microversion that openstacksdk 1.x added, and nothing else, so the calls
# below are the proxy's own, exactly as nova makes them.
_node.Node._query_mapping = resource.QueryParameters(
    'associated', 'conductor_group', 'driver', 'fault', 'provision_state',
    'resource_class', 'shard',
    fields={'type': _node._common.fields_type},
    instance_id='instance_uuid',
    is_maintenance='maintenance',
)
_node.Node._max_microversion = '1.82'
_node.Node.shard = resource.Body('shard')


def connect(endpoint):
    return openstack.connect(auth_type='none', auth={'endpoint': endpoint},
                             baremetal_endpoint_override=endpoint)


def view(node, fields):
    """The node as the consumer sees it: the requested fields, by their API names."""
    names = {'uuid': 'id', 'instance_uuid': 'instance_id',
             'maintenance': 'is_maintenance'}
    return {f: getattr(node, names.get(f, f)) for f in fields}


def compute_refresh(proxy, shard):
    """Nova's _refresh_cache for a compute service with [ironic]shard set."""
    nodes = proxy.nodes(fields=NOVA_FIELDS, shard=shard)
    return [view(n, NOVA_FIELDS) for n in nodes]


def metal3_pass(proxy, limit):
    """Every node, a page of `limit` at a time, each page one request after the last's marker."""
    pages, marker = [], None
    while True:
        query = {'details': True, 'limit': limit}
        if marker is not None:
            query['marker'] = marker
        # islice stops the generator before it would fetch the next page by itself.
        page = list(itertools.islice(proxy.nodes(**query), limit))
        pages.append([{'uuid': n.id, 'name': n.name, 'driver': n.driver,
                       'provision_state': n.provision_state} for n in page])
        if len(page) < limit:
            break
        marker = page[-1].id
    # The sdk's own paging: it follows each page's `next` link until a short page.
    followed = [n.id for n in proxy.nodes(details=True, limit=limit)]
    return {'pages': pages, 'followed': followed}


def main(endpoint, command, *args):
    proxy = connect(endpoint).baremetal
    if command == 'compute':
        return compute_refresh(proxy, args[0])
    if command == 'get':
        return view(proxy.get_node(args[0], fields=NOVA_FIELDS), NOVA_FIELDS)
    if command == 'by-instance':
        found = proxy.nodes(instance_id=args[0], fields=NOVA_FIELDS)
        return [view(n, NOVA_FIELDS) for n in found]
    if command == 'move':
        patched = proxy.patch_node(
            args[0], [{'op': 'replace', 'path': '/shard', 'value': args[1]}])
        return {'uuid': patched.id}
    if command == 'spawn':
        # Nova's _add_instance_info_to_node, then the deploy (fake-hardware ignores the image).
        node_id, instance = args
        proxy.patch_node(node_id, [
            {'op': 'add', 'path': '/instance_info/image_source',
             'value': 'http://images.example/image.qcow2'},
            {'op': 'add', 'path': '/instance_info/root_gb', 'value': '10'},
            {'op': 'add', 'path': '/instance_uuid', 'value': instance},
        ])
        proxy.set_node_provision_state(node_id, 'active', wait=True, timeout=120)
        return view(proxy.get_node(node_id, fields=NOVA_FIELDS), NOVA_FIELDS)
    if command == 'metal3':
        return metal3_pass(proxy, int(args[0]))
    raise SystemExit('unknown command: %s' % command)


if __name__ == '__main__':
    print(json.dumps(main(*sys.argv[1:]), default=str))
