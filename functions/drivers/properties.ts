/**
 * What `GET /v1/drivers/{name}/properties` lists: the `driver_info` properties the hardware type's
 * default interfaces understand, with Ironic's descriptions (clients show them to operators, so
 * the text is part of the protocol). Ironic gathers them from each default interface's
 * `get_properties()`; here they are one table per hardware type.
 */

/** Ironic's fake-hardware: only its default vendor interface ("fake", FakeVendorB) has properties. */
const FAKE_HARDWARE: Readonly<Record<string, string>> = {
  B1: 'B1 description. Required.',
  B2: 'B2 description. Required.',
};

/** Ironic's redfish power and management interfaces (`redfish/utils.py` COMMON_PROPERTIES). */
const REDFISH: Readonly<Record<string, string>> = {
  redfish_address:
    'The URL address to the Redfish controller. It must include the authority portion of the URL. If the scheme is missing, https is assumed. For example: https://mgmt.vendor.com. If a path is added, it will be used as the API endpoint root_prefix. Required',
  redfish_system_id:
    'The canonical path to the ComputerSystem resource that the driver will interact with. It should include the root service, version and the unique resource path to a ComputerSystem within the same authority as the redfish_address property. For example: /redfish/v1/Systems/1. This property is only required if target BMC manages more than one ComputerSystem. Otherwise ironic will pick the only available ComputerSystem automatically.',
  redfish_username:
    "User account with admin/server-profile access privilege. Although this property is not mandatory it's highly recommended to set a username. Optional",
  redfish_password: "User account password. Although this property is not mandatory, it's highly recommended to set a password. Optional",
  redfish_verify_ca:
    "Either a Boolean value, a path to a CA_BUNDLE file or directory with certificates of trusted CAs. If set to True the driver will verify the host certificates; if False the driver will ignore verifying the SSL certificate. If it's a path the driver will use the specified certificate or one of the certificates in the directory. Defaults to True. Optional",
  redfish_auth_type:
    'Redfish HTTP client authentication method. Can be "basic", "session" or "auto". If not set, the default value is taken from Ironic configuration as ``[redfish]auth_type`` option.',
};

const PROPERTIES: ReadonlyMap<string, Readonly<Record<string, string>>> = new Map([
  ['fake-hardware', FAKE_HARDWARE],
  ['redfish', REDFISH],
]);

/** The properties of a hardware type, or undefined when Ironless has no such type. */
export function driverProperties(hardwareType: string): Record<string, string> | undefined {
  const properties = PROPERTIES.get(hardwareType);
  return properties === undefined ? undefined : { ...properties };
}
