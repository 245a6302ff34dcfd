// Query keys and the shared queries several screens read.
import { useQuery } from '@tanstack/react-query';
import { client, unwrap, type Schemas } from './client';
import { hasSession, rememberSession } from '../session';

export const keys = {
  me: ['me'] as const,
  config: ['config'] as const,
  publicConfig: ['config', 'public'] as const,
  accounts: ['accounts'] as const,
  brokerages: ['brokerages'] as const,
  tags: ['tags'] as const,
  playbooks: ['playbooks'] as const,
};

export type User = Schemas['User'];
export type AppConfig = Schemas['AppConfig'];

/** useMe is the signed-in user; it is not asked for while this browser has no session (session.ts). */
export function useMe() {
  return useQuery({
    queryKey: keys.me,
    queryFn: async () => {
      const { user } = await unwrap(client.GET('/api/auth/me'));
      rememberSession();
      return user;
    },
    enabled: hasSession(),
    staleTime: 60_000,
  });
}

/** useAppConfig is the instance's feature switches; authenticated, so not asked for without a session. */
export function useAppConfig() {
  return useQuery({
    queryKey: keys.config,
    queryFn: () => unwrap(client.GET('/api/config')),
    enabled: hasSession(),
    staleTime: Infinity,
  });
}

/** usePublicConfig is what a signed-out screen needs to know: is sign-up open, is email on. */
export function usePublicConfig() {
  return useQuery({
    queryKey: keys.publicConfig,
    queryFn: () => unwrap(client.GET('/api/config/public')),
    staleTime: Infinity,
  });
}

export function useAccounts() {
  return useQuery({
    queryKey: keys.accounts,
    queryFn: async () => (await unwrap(client.GET('/api/accounts'))).items,
  });
}

export function useBrokerages() {
  return useQuery({
    queryKey: keys.brokerages,
    queryFn: async () => (await unwrap(client.GET('/api/brokerages'))).items,
  });
}

export function useTags() {
  return useQuery({
    queryKey: keys.tags,
    queryFn: async () => (await unwrap(client.GET('/api/tags'))).items,
  });
}

/** usePlaybooks is every playbook of the user (at most 100: one list), by name, with its checklist. */
export function usePlaybooks() {
  return useQuery({
    queryKey: keys.playbooks,
    queryFn: async () => (await unwrap(client.GET('/api/playbooks'))).items,
  });
}
