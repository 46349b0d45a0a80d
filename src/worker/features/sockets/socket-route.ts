/** Headers a socket route sets on the upgrade it forwards (never taken from the client). */
export const SOCKET_ROUTE_HEADER = "x-toolgate-socket";
/** The consumer the route matched. */
export const SOCKET_CONSUMER_HEADER = "x-toolgate-consumer";
/** The bearer token the route read (header or subprotocol). */
export const SOCKET_TOKEN_HEADER = "x-toolgate-token";
/** The provider id the capability route matched. */
export const SOCKET_PROVIDER_HEADER = "x-toolgate-provider";
