import { PageTitle } from '../components/ui';

export default function CsvImport() {
  return <PageTitle>CsvImport</PageTitle>;
}
