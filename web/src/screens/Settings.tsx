import { PageTitle } from '../components/ui';

export default function Settings() {
  return <PageTitle>Settings</PageTitle>;
}
