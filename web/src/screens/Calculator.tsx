import { PageTitle } from '../components/ui';

export default function Calculator() {
  return <PageTitle>Calculator</PageTitle>;
}
