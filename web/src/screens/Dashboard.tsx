import { PageTitle } from '../components/ui';

export default function Dashboard() {
  return <PageTitle>Dashboard</PageTitle>;
}
