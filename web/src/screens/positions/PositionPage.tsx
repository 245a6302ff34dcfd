import { PageTitle } from '../../components/ui';

export default function PositionPage() {
  return <PageTitle>PositionPage</PageTitle>;
}
