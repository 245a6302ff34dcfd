import { useQuery } from '@tanstack/react-query';
import { client, unwrap } from '../../api/client';

export const connectionsKey = ['connections'];

/** useConnections is the user's broker connections with their status. */
export function useConnections() {
  return useQuery({ queryKey: connectionsKey, queryFn: async () => (await unwrap(client.GET('/api/connections'))).items });
}
